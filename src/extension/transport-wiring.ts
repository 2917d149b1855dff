// How an extended client reaches workers: it opens the wake-up transport and its sender, readies the client once,
// hands committed wake-ups to the sender (or leaves them to NOTIFY), and exposes the controls on `prisma.$taskQueue`.

import type { TaskRegistry } from "../define-tasks.js";
import type { EnqueueBatch } from "../enqueue/committed-enqueues.js";
import { CommitListeners } from "../enqueue/committed-enqueues.js";
import { ENQUEUE_HOOK, enqueueHook, type EnqueueHook } from "../enqueue/enqueue-hook.js";
import type { Wakeup } from "../enqueue/transaction-scopes.js";
import { TaskQueueConfigError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { PrepareReport, Store } from "../store/store.js";
import { InProcessTransport } from "../wakeups/in-process-transport.js";
import { openTransport } from "../wakeups/open-transport.js";
import type { BrokerState, WakeupTransport } from "../wakeups/transport.js";
import { WakeupSender } from "../wakeups/wakeup-sender.js";
import type { ResolvedTaskQueueOptions, TaskQueueOptions } from "./options.js";
import { telemetry } from "../telemetry/telemetry.js";
import { runAfterResponse } from "../serverless/run-after.js";

/** Controls of the extension, on `prisma.$taskQueue`. */
export interface TaskQueueHandle {
  /** Resolves when every wake-up handed over so far is confirmed by the broker (or has failed and was reported). */
  flush(): Promise<void>;
  /** Flushes, then closes the broker connection. Call it before your process exits. */
  close(): Promise<void>;
  /**
   * The broker as this client last saw it, e.g. `{ transport: "rabbitmq", state: "refused", url, error, fix, since }`:
   * "connected", "connecting", "unreachable" (retried with backoff), "refused" (wrong credentials or virtual host:
   * `fix` says what to change; retried every 30 s), or "none" without amqpUrl. A health check can report it. Reading it
   * starts the connection when nothing was published yet (the client connects lazily, at the first wake-up), so the
   * first read after start says "connecting". Enqueue succeeds in every state; only wake-ups wait.
   */
  readonly broker: BrokerState;
}

/** The wake-up side of one extended client. */
interface TransportWiring {
  readonly transport: WakeupTransport;
  /** Settles once the client is readied (store.prepare()); rejects when it cannot serve the queue. */
  readonly ready: Promise<void>;
  /** Hands wake-ups of committed tasks to the sender, and the committed enqueue calls to the listeners. Never throws. */
  commit(wakeups: readonly Wakeup[], enqueued: readonly EnqueueBatch[]): void;
  /** Warns (once) that an enqueue ran in a transaction whose commit cannot be observed. */
  untracked(): void;
  /** The object put on `prisma.$taskQueue`. */
  readonly handle: TaskQueueHandle & { [ENQUEUE_HOOK]: EnqueueHook };
}

/** Opens the transport of one extended client whose statements run through `store`; `extended` returns that client. */
export function wireTransport(
  options: TaskQueueOptions<TaskRegistry, string>,
  resolved: ResolvedTaskQueueOptions<TaskRegistry>,
  store: Store,
  extended: () => unknown,
): TransportWiring {
  const { logger, tasks, table } = resolved;
  const transport = openTransport({ ...options, logger, store, inProcess: store.wakeupIdentity });
  const report = store.prepare();
  const ready = readyClient(report, transport, logger);
  const listeners = new CommitListeners(logger);
  // Due tasks are inserted marked published; a failed publish clears the mark for the cleaner.
  const sender = new WakeupSender({
    transport,
    logger,
    markFailed: (ids) => store.markUnpublished(ids),
    onFailed: options.onPublishError,
  });
  let warnedUntracked = false;
  let closed = false;
  const afterCommit = resolved.after && runAfterResponse({ after: resolved.after.run, budgetMs: resolved.after.budgetMs, tasks, store, logger, prisma: extended });
  return {
    transport,
    ready,
    commit(wakeups, enqueued) {
      // NOTIFY wake-ups left with the COMMIT itself (the insert sent them); others are handed to the sender now.
      if (wakeups.length > 0 && transport.enqueueChannel === undefined) sender.send(wakeups);
      listeners.committed(enqueued);
      afterCommit?.(enqueued);
      const observed = telemetry();
      if (observed) observed.enqueued(committedRows(enqueued), store.dialect);
    },
    untracked() {
      if (warnedUntracked || transport.enqueueChannel !== undefined) return;
      warnedUntracked = true;
      logger.warn("enqueue ran in a transaction not started through this client's $transaction; its wake-ups are left to the cleaner", {});
    },
    handle: {
      async flush() {
        await sender.flush();
      },
      async close() {
        closed = true;
        await sender.close();
        await transport.close();
      },
      get broker() {
        if (!closed) transport.start();
        return transport.broker;
      },
      [ENQUEUE_HOOK]: enqueueHook({ tasks, table, store, ready, report, listen: (listener) => listeners.listen(listener) }),
    },
  };
}

/**
 * Readies the app's client once (store.prepare()): the transport learns the database's identity for in-process
 * wake-ups, notes are logged, and a lasting problem rejects every enqueue with TaskQueueConfigError naming the fix.
 */
function readyClient(prepared: Promise<PrepareReport>, transport: WakeupTransport, logger: Logger): Promise<void> {
  const ready = prepared.then((report) => {
    if (report.wakeupIdentity !== undefined && transport instanceof InProcessTransport) transport.identity = report.wakeupIdentity;
    for (const note of report.notes ?? []) logger.warn(note, {});
    if (report.problem) {
      const { message, detail } = report.problem;
      throw new TaskQueueConfigError("prisma", `${message}; ${detail ?? "check the client's adapter"}.`);
    }
  });
  ready.catch(() => {}); // reported by every enqueue that awaits it
  return ready;
}

/** The committed rows' queues, and whether each is new (a matched dedupe key sent nothing). */
function committedRows(batches: readonly EnqueueBatch[]): Array<{ queue: string; created: boolean }> {
  return batches.flatMap((batch) => batch.inserted.map((row) => ({ queue: batch.prepared[row.i]!.queue, created: row.created })));
}
