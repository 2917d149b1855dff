// The extension's door for prisma-task-queue/testing: what an extended client enqueues and commits, and the store a
// worker of this process should use on the same database. It rides on `prisma.$taskQueue` under a symbol, so it stays
// out of the typed API, and Symbol.for() lets two copies of the package in one process still find it.

import type { TaskRegistry } from "../define-tasks.js";
import { openStore } from "../dialects/index.js";
import type { PrepareReport, Store } from "../store/store.js";
import type { TaskTable } from "../store/task-table.js";
import type { CommitListener } from "./committed-enqueues.js";

export const ENQUEUE_HOOK = Symbol.for("prisma-task-queue.enqueue-hook");

/** A store for a worker of this process; `owned` when it opened connections of its own, which close() ends. */
export interface WorkerStoreChoice {
  store: Store;
  owned: boolean;
}

export interface EnqueueHook {
  /** The registry the client was extended with. */
  readonly tasks: TaskRegistry;
  /** The task table it writes. */
  readonly table: TaskTable;
  /** Calls `listener` with the enqueue calls of every commit through this client (or its transactions) from now on. */
  listen(listener: CommitListener): () => void;
  /**
   * The store a worker in this process should claim and complete through: the one bound to the app's client, or, where
   * that client runs everything on one connection (SQLite), a store on a connection of its own. Waits until the client
   * is readied; rejects as enqueue would when the client cannot serve the queue.
   */
  workerStore(): Promise<WorkerStoreChoice>;
}

/** Builds the hook of one extended client. */
export function enqueueHook(options: {
  tasks: TaskRegistry;
  table: TaskTable;
  store: Store;
  ready: Promise<void>;
  report: Promise<PrepareReport>;
  listen: (listener: CommitListener) => () => void;
}): EnqueueHook {
  const { tasks, table, store, ready, report } = options;
  return {
    tasks,
    table,
    listen: options.listen,
    async workerStore() {
      await ready;
      const { workerUrl } = await report;
      if (workerUrl === undefined) return { store, owned: false };
      return { store: openStore(workerUrl, { table }, "workerUrl"), owned: true };
    },
  };
}

/** The hook of a client extended with taskQueue(), or undefined for anything else. */
export function enqueueHookOf(client: unknown): EnqueueHook | undefined {
  const handle = (client as { $taskQueue?: unknown } | null | undefined)?.$taskQueue;
  if (typeof handle !== "object" || handle === null) return undefined;
  const hook = (handle as Record<symbol, unknown>)[ENQUEUE_HOOK];
  return typeof hook === "object" && hook !== null ? (hook as EnqueueHook) : undefined;
}
