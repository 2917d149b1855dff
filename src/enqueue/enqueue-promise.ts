// The lazy, Prisma-compatible promise that enqueue returns. Awaited, it inserts and then publishes (now, or after
// the surrounding transaction commits). Passed to a batch $transaction([...]), it joins that batch and the batch's
// $transaction publishes after the commit.

import type { InsertRequest, InsertedTask, PreparedTask } from "../store/enqueue-rows.js";
import { TaskEnqueueWouldWaitError, TaskKeyVanishedError } from "../errors.js";
import type { Store } from "../store/store.js";
import type { EnqueueBatch } from "./committed-enqueues.js";
import { sentNow, toEnqueuedTask, wakeupsOf, type SentAt } from "./enqueued-task.js";
import { TransactionScope, type TransactionScopes, type Wakeup } from "./transaction-scopes.js";
import { telemetry, type EnqueueScope } from "../telemetry/telemetry.js";

/** What enqueue needs from the extension around it. */
export interface EnqueueCore {
  /** The store bound to the extended client; `through(client)` binds it to the client an enqueue runs on. */
  store: Store;
  /** Settles once the client is readied (store.prepare()); rejects when it cannot serve the queue. */
  ready: Promise<void>;
  scopes: TransactionScopes;
  /** Hands wake-ups of committed tasks to the sender, and the committed enqueue calls to the listeners. Never throws. */
  commit(wakeups: readonly Wakeup[], enqueued: readonly EnqueueBatch[]): void;
  /** Warns (once) that an enqueue ran in a transaction whose commit cannot be observed. */
  untracked(): void;
  /** True when wake-ups are published (a transport is configured): the insert then marks due tasks as published. */
  publishes: boolean;
  /**
   * Where the client runs every statement on one connection (SQLite): how an enqueue outside a transaction gets a
   * transaction of its own, so its row can never join another transaction open on that connection and vanish with it.
   * `held`: the caller is inside one of this client's transactions (its enqueue on the client would wait for itself).
   */
  ownTransaction?: { readonly held: boolean; run(request: InsertRequest["request"]): Promise<unknown> };
  /** The NOTIFY channel the insert itself sends the due tasks' wake-ups on (NOTIFY transport), else undefined. */
  notifyChannel?: string;
}

/**
 * The promises enqueue made, with whether each stands for one task, its rows and how to read its statement's result,
 * so a batch $transaction can find their results.
 */
const batchItems = new WeakMap<
  object,
  { single: boolean; rows: readonly PreparedTask[]; read(result: unknown): InsertedTask[] | PromiseLike<InsertedTask[]>; span: EnqueueScope | undefined }
>();

/**
 * Builds the promise for inserting `rows` through `client`. `single` makes it resolve to one EnqueuedTask
 * instead of an array.
 */
export function enqueuePromise(core: EnqueueCore, client: object, rows: PreparedTask[], single: boolean) {
  const placement = core.scopes.placement(client);
  const store = core.store.through(client);
  // The enqueue's span opens in the caller's context and writes its trace context into the rows, before the insert is made.
  const span = telemetry()?.enqueueStarted(rows, core.store.dialect);
  const insert = store.insertTasks(rows, core.publishes, core.notifyChannel);
  const raw = insert.request;
  let run: Promise<unknown> | undefined;
  let sent: SentAt = sentNow();
  const send = () => {
    sent = sentNow();
    const own = placement.kind === "autocommit" ? core.ownTransaction : undefined;
    if (!own) return raw;
    if (own.held) throw new TaskEnqueueWouldWaitError(rows.map((row) => row.name));
    // A request made now, once the client is ready (Prisma 6 never runs one made before its first query in a batch).
    return own.run(store.insertTasks(rows, core.publishes, core.notifyChannel).request);
  };
  const start = () => {
    if (run) return run;
    run = core.ready.then(send).then(async (result) => {
      const complete = await completeRows(store, await insert.read(result));
      const wakeups = wakeupsOf(complete, rows, sent);
      const batch: EnqueueBatch = { prepared: rows, inserted: complete };
      if (placement.kind === "autocommit") core.commit(wakeups, [batch]);
      else if (placement.kind === "transaction") placement.scope.add(batch, wakeups);
      else if (complete.some((row) => row.due)) core.untracked();
      const tasks = complete.map(toEnqueuedTask);
      return single ? tasks[0] : tasks;
    });
    if (span)
      void run.then(
        () => span.end(),
        (error: unknown) => span.end(error),
      );
    return run;
  };
  const promise = {
    then: (onFulfilled?: (value: unknown) => unknown, onRejected?: (reason: unknown) => unknown) => start().then(onFulfilled, onRejected),
    catch: (onRejected?: (reason: unknown) => unknown) => start().catch(onRejected),
    finally: (onFinally?: () => void) => start().finally(onFinally),
    requestTransaction: (batch: unknown) => raw.requestTransaction!(batch),
    [Symbol.toStringTag]: "PrismaPromise",
  };
  batchItems.set(promise, { single, rows, read: (result: unknown) => insert.read(result), span });
  return promise;
}

/** Resolves the results of a batch $transaction: enqueue items become EnqueuedTasks; returns their wake-ups and calls. */
export async function settleBatch(core: EnqueueCore, client: object, items: readonly unknown[], results: unknown[]): Promise<TransactionScope> {
  const settled = new TransactionScope();
  // The batch ran just before: counting a delay from now makes its wake-up at most the batch's duration late.
  const sent = sentNow();
  const store = core.store.through(client);
  for (let index = 0; index < items.length; index++) {
    const item = typeof items[index] === "object" && items[index] !== null ? batchItems.get(items[index] as object) : undefined;
    if (!item) continue;
    item.span?.end();
    const complete = await completeRows(store, await item.read(results[index]));
    settled.add({ prepared: item.rows, inserted: complete }, wakeupsOf(complete, item.rows, sent));
    const tasks = complete.map(toEnqueuedTask);
    results[index] = item.single ? tasks[0] : tasks;
  }
  return settled;
}

/** Ends the enqueue spans of a batch $transaction that failed, with its error. */
export function failBatch(items: readonly unknown[], error: unknown): void {
  for (const item of items) {
    if (typeof item === "object" && item !== null) batchItems.get(item)?.span?.end(error);
  }
}

/**
 * Fills in rows whose key collided with a task that committed after the insert took its snapshot: the insert
 * could not see that task, a fresh statement can.
 */
async function completeRows(store: Store, rows: InsertedTask[]): Promise<InsertedTask[]> {
  const missing = rows.filter((row) => row.id === null && row.key !== null).map((row) => row.key!);
  if (missing.length === 0) return rows;
  const found = new Map((await store.tasksByKeys(missing)).map((row) => [row.key, row]));
  return rows.map((row) => {
    if (row.id !== null) return row;
    const existing = found.get(row.key);
    if (!existing) throw new TaskKeyVanishedError(row.key!);
    return { ...existing, i: row.i };
  });
}
