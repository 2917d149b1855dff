// The lazy, Prisma-compatible promise that enqueue returns. Awaited, it inserts and then publishes (now, or after
// the surrounding transaction commits). Passed to a batch $transaction([...]), it joins that batch and the batch's
// $transaction publishes after the commit.

import type { TaskTable } from "../db/table.js";
import { selectTasksByKeys, type InsertedTaskRow } from "../sql/insert-tasks.js";
import { prismaDb, type PrismaRawClient } from "../db/prisma-db.js";
import { toEnqueuedTask, wakeupsOf, type EnqueuedTask } from "./enqueued-task.js";
import { insertStatement } from "./insert-statement.js";
import type { PreparedTask } from "./prepare.js";
import type { TransactionScopes, Wakeup } from "./transaction-scopes.js";

/** What enqueue needs from the extension around it. */
export interface EnqueueCore {
  table: TaskTable;
  scopes: TransactionScopes;
  /** Hands wake-ups of committed tasks to the publisher. Never throws. */
  publish(wakeups: readonly Wakeup[]): void;
  /** Warns (once) that an enqueue ran in a transaction whose commit cannot be observed. */
  untracked(): void;
  /** True when wake-ups are published (an amqpUrl was given): the insert then marks due tasks as published. */
  publishes: boolean;
}

/**
 * The promises enqueue made, with whether each stands for one task and how to read its statement's result, so a batch
 * $transaction can find their results.
 */
const batchItems = new WeakMap<object, { single: boolean; rowsOf(result: readonly unknown[]): InsertedTaskRow[] }>();

/**
 * Builds the promise for inserting `rows` through `client`. `single` makes it resolve to one EnqueuedTask
 * instead of an array.
 */
export function enqueuePromise(core: EnqueueCore, client: PrismaRawClient, rows: PreparedTask[], single: boolean) {
  const placement = core.scopes.placement(client);
  const statement = insertStatement(core.table, rows, core.publishes);
  const raw = client.$queryRawUnsafe<unknown[]>(statement.sql, ...statement.params) as PromiseLike<unknown[]> & {
    requestTransaction(batch: unknown): PromiseLike<unknown[]>;
  };
  let run: Promise<unknown> | undefined;
  const start = () =>
    (run ??= Promise.resolve(raw).then(async (result) => {
      const complete = await completeRows(core, client, statement.rowsOf(result));
      const wakeups = wakeupsOf(complete);
      if (placement.kind === "autocommit") core.publish(wakeups);
      else if (placement.kind === "transaction") placement.scope.wakeups.push(...wakeups);
      else if (wakeups.length > 0) core.untracked();
      const tasks = complete.map(toEnqueuedTask);
      return single ? tasks[0] : tasks;
    }));
  const promise = {
    then: (onFulfilled?: (value: any) => unknown, onRejected?: (reason: unknown) => unknown) => start().then(onFulfilled, onRejected),
    catch: (onRejected?: (reason: unknown) => unknown) => start().catch(onRejected),
    finally: (onFinally?: () => void) => start().finally(onFinally),
    requestTransaction: (batch: unknown) => raw.requestTransaction(batch),
    [Symbol.toStringTag]: "PrismaPromise",
  };
  batchItems.set(promise, { single, rowsOf: statement.rowsOf });
  return promise;
}

/** Resolves the results of a batch $transaction: enqueue items become EnqueuedTasks; returns their wake-ups. */
export async function settleBatch(
  core: EnqueueCore,
  client: PrismaRawClient,
  items: readonly unknown[],
  results: unknown[],
): Promise<Wakeup[]> {
  const wakeups: Wakeup[] = [];
  for (let index = 0; index < items.length; index++) {
    const item = typeof items[index] === "object" && items[index] !== null ? batchItems.get(items[index] as object) : undefined;
    if (!item) continue;
    const complete = await completeRows(core, client, item.rowsOf(results[index] as unknown[]));
    wakeups.push(...wakeupsOf(complete));
    const tasks = complete.map(toEnqueuedTask);
    results[index] = item.single ? tasks[0] : tasks;
  }
  return wakeups;
}

/**
 * Fills in rows whose key collided with a task that committed after the insert took its snapshot: the insert
 * could not see that task, a fresh statement can.
 */
async function completeRows(core: EnqueueCore, client: PrismaRawClient, rows: InsertedTaskRow[]): Promise<InsertedTaskRow[]> {
  const missing = rows.filter((row) => row.id === null && row.key !== null).map((row) => row.key!);
  if (missing.length === 0) return rows;
  const found = new Map((await selectTasksByKeys(prismaDb(client), core.table, missing)).map((row) => [row.key, row]));
  return rows.map((row) => {
    if (row.id !== null) return row;
    const existing = found.get(row.key);
    if (!existing) throw new Error(`Task with key ${JSON.stringify(row.key)} vanished while enqueueing; retry the transaction.`);
    return { ...existing, i: row.i };
  });
}
