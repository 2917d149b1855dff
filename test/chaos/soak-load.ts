// The soak's driver: app-like Prisma transactions that write a business row and enqueue 1-5 tasks; a fixed share roll
// back on purpose, some tasks are delayed, some repeat a dedupe key, some handlers fail N times or sleep; a quarter go
// to the limited, rate-limited and pausable queues.

import type { EnqueuedTask, EnqueueOptions } from "../../src/index.js";
import type { SeededRandom } from "./seeded-random.js";
import { SOAK_ACCOUNTS } from "./soak-tasks.js";

/** The driver's transactions: waits long enough for a loaded machine (a timeout is not a fault the soak injects). */
const TRANSACTION_WAITS = { maxWait: 30_000, timeout: 60_000 };

/** What the load uses of a client extended with taskQueue() (and of its transaction client), whatever its dialect. */
interface LoadEnqueue {
  task: {
    enqueue(name: string, payload: unknown, options?: EnqueueOptions): Promise<EnqueuedTask>;
    signal(taskId: string, event: string, payload?: unknown): Promise<unknown>;
  };
}
export interface LoadTx extends LoadEnqueue {
  report: { create(args: { data: { id: string } }): Promise<unknown> };
}
export interface LoadClient extends LoadEnqueue {
  $transaction<R>(fn: (tx: LoadTx) => Promise<R>, options?: { maxWait?: number; timeout?: number }): Promise<R>;
}

export interface LoadRecord {
  /** New tasks whose transaction committed, with the time its $transaction returned (ms since epoch); a workflow's children. */
  committed: Map<string, CommittedTask>;
  /** The events "approve" sent to workflows, each with whether its transaction committed. */
  signals: Array<SentSignal & { committed: boolean }>;
  rolledBack: Set<string>;
  transactions: number;
  rolledBackTransactions: number;
  /** Transactions the database failed (a SQLite write lock held past the busy timeout): rolled back, not planned. */
  failedTransactions: number;
  committedTransactions: number;
  /** Enqueues that returned an existing task through its key. */
  duplicates: number;
  /** Ids published by hand before their transaction committed (the early wake-up fault). */
  earlyWakeups: number;
  /** Transactions whose COMMIT failed on purpose (the failing-commit fault), each with an enqueue issued while it was open. */
  failedCommits: number;
}

export interface LoadHooks {
  /** Publishes ids straight to the broker, bypassing the extension (for wake-ups before commit). */
  publishRaw(ids: string[]): void;
  /** True when the fault schedule wants the next transaction to publish its ids before COMMIT. */
  takeEarlyWakeup(): boolean;
  /** True when the fault schedule wants the next transaction's COMMIT to fail for a lasting reason. */
  takeFailingCommit(): boolean;
  /** Inside the transaction, after its enqueues: makes its COMMIT fail (a deferred key violated, or the connection killed). */
  breakCommit(tx: LoadTx): Promise<void>;
  /** Called after every transaction with what it added to the record. */
  settled(delta: LoadDelta): void;
  /**
   * True for an error the database raised that left the transaction rolled back and is worth retrying (SQLite's
   * write lock held past the busy timeout). Such a transaction counts as failed; any other error stops the load.
   */
  rolledBackByDatabase(error: unknown): boolean;
}

export interface CommittedTask {
  name: string;
  committedAt: number;
  delayed: boolean;
  /** soak-workflow: how many children it starts. */
  children?: number;
}

/** An event "approve" a transaction sent to a workflow: in the workflow's own enqueue transaction, or a later one. */
export interface SentSignal {
  taskId: string;
  token: string;
  sameTx: boolean;
}

/** What one transaction added to the LoadRecord. */
export interface LoadDelta {
  committed: Array<CommittedTask & { id: string }>;
  /** The events it sent (they exist if it committed). */
  signals: SentSignal[];
  rolledBack: string[];
  rolledBackTransaction: boolean;
  /** The database failed it (see LoadHooks.rolledBackByDatabase). */
  failedTransaction: boolean;
  duplicates: number;
  earlyWakeup: boolean;
  /** Its COMMIT failed on purpose. */
  failedCommit: boolean;
}

/** Adds one transaction's delta to `record` (the orchestrator's copy of the driver process's record). */
export function applyDelta(record: LoadRecord, delta: LoadDelta): void {
  for (const { id, ...task } of delta.committed) record.committed.set(id, task);
  const committed = delta.committed.length > 0 && !delta.failedCommit && !delta.failedTransaction && !delta.rolledBackTransaction;
  for (const signal of delta.signals) record.signals.push({ ...signal, committed });
  for (const id of delta.rolledBack) record.rolledBack.add(id);
  record.transactions++;
  if (delta.failedCommit) record.failedCommits++;
  else if (delta.failedTransaction) record.failedTransactions++;
  else if (delta.rolledBackTransaction) record.rolledBackTransactions++;
  else record.committedTransactions++;
  record.duplicates += delta.duplicates;
  if (delta.earlyWakeup) record.earlyWakeups++;
}

class PlannedRollback extends Error {}

export function emptyLoadRecord(): LoadRecord {
  return {
    committed: new Map(),
    signals: [],
    rolledBack: new Set(),
    transactions: 0,
    rolledBackTransactions: 0,
    failedTransactions: 0,
    committedTransactions: 0,
    duplicates: 0,
    earlyWakeups: 0,
    failedCommits: 0,
  };
}

/**
 * Runs transactions on `concurrency` loops until `until()` is false, starting at most `perSecond` of them a second, so
 * the load stays one the workers can keep up with and commit → finish measures the system, not a growing backlog.
 */
export async function driveLoad(
  prisma: LoadClient,
  random: SeededRandom,
  hooks: LoadHooks,
  options: { concurrency: number; perSecond: number; waitForChildren: boolean },
  until: () => boolean,
): Promise<void> {
  const recentKeys: string[] = [];
  /** Committed workflows that wait for an event a later transaction sends (or rolls back). */
  const awaitingSignal: string[] = [];
  const gapMs = 1000 / options.perSecond;
  let nextStart = Date.now();
  const pace = async () => {
    const wait = nextStart - Date.now();
    nextStart = Math.max(nextStart, Date.now()) + gapMs;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  };
  const loop = async () => {
    for (await pace(); until(); await pace()) {
      const enqueued: Array<{ task: EnqueuedTask; delayed: boolean; children?: number; laterSignal?: boolean }> = [];
      const delta: LoadDelta = {
        committed: [],
        signals: [],
        rolledBack: [],
        rolledBackTransaction: false,
        failedTransaction: false,
        duplicates: 0,
        earlyWakeup: false,
        failedCommit: false,
      };
      const failCommit = hooks.takeFailingCommit();
      const rollback = !failCommit && random.chance(0.15);
      let alone: Promise<{ task: EnqueuedTask; at: number } | undefined> | undefined;
      const early = hooks.takeEarlyWakeup();
      const count = random.int(1, 5);
      const plan = Array.from({ length: count }, () => ({
        kind: random.next(),
        delayed: random.chance(0.1),
        delayMs: random.int(200, 2000),
        keyed: random.chance(0.1),
        sleepMs: random.chance(0.3) ? random.int(50, 800) : 0,
        failTimes: random.chance(0.2) ? random.int(1, 2) : 0,
        account: random.pick(SOAK_ACCOUNTS),
        workflow: {
          sleepMs: random.chance(0.4) ? random.int(100, 1500) : 0,
          waitMs: random.chance(0.6) ? random.int(300, 3000) : 0,
          children: random.int(0, 3),
          waitChildren: options.waitForChildren,
          failTimes: random.chance(0.2) ? 1 : 0,
        },
        signal: random.next(),
      }));
      const signalLater = awaitingSignal.length > 0 && random.chance(0.5) ? awaitingSignal.shift() : undefined;
      const reuseKey = recentKeys.length > 0 && random.chance(0.3) ? random.pick(recentKeys) : undefined;
      try {
        await prisma.$transaction(async (tx) => {
          await tx.report.create({ data: { id: crypto.randomUUID() } });
          for (const step of plan) {
            const options: EnqueueOptions = {};
            if (step.delayed) options.delayMs = step.delayMs;
            if (step.keyed) options.key = `soak:${crypto.randomUUID()}`;
            const work = { sleepMs: step.sleepMs, failTimes: step.failTimes };
            if (step.kind >= 0.03 && step.kind < 0.08) {
              // A workflow; its event, when it waits for one: sent here (0.4), by a later transaction (0.4), or never.
              const task = await tx.task.enqueue("soak-workflow", step.workflow, options);
              const waits = step.workflow.waitMs > 0;
              if (waits && step.signal < 0.4 && task.created) {
                const token = crypto.randomUUID();
                await tx.task.signal(task.id, "approve", { token });
                delta.signals.push({ taskId: task.id, token, sameTx: true });
              }
              enqueued.push({ task, delayed: step.delayed, children: step.workflow.children, laterSignal: waits && step.signal >= 0.4 && step.signal < 0.8 });
              continue;
            }
            const task =
              step.kind < 0.03
                ? await tx.task.enqueue("soak-doomed", { reason: "this task always fails" }, options)
                : step.kind < 0.75
                  ? await tx.task.enqueue(step.kind < 0.5 ? "soak-plain" : "soak-tx", work, options)
                  : step.kind < 0.85
                    ? await tx.task.enqueue("soak-account", { ...work, account: step.account }, options)
                    : await tx.task.enqueue(step.kind < 0.9 ? "soak-rated" : "soak-pausable", work, options);
            enqueued.push({ task, delayed: step.delayed });
            if (step.keyed && !rollback) recentKeys.push(options.key as string);
          }
          if (signalLater) {
            const token = crypto.randomUUID();
            await tx.task.signal(signalLater, "approve", { token });
            delta.signals.push({ taskId: signalLater, token, sameTx: false });
          }
          if (reuseKey) {
            const again = await tx.task.enqueue("soak-plain", { sleepMs: 0, failTimes: 0 }, { key: reuseKey });
            if (!again.created) delta.duplicates++;
            else enqueued.push({ task: again, delayed: false });
          }
          if (early) {
            hooks.publishRaw(enqueued.map((e) => e.task.id));
            delta.earlyWakeup = true;
            await new Promise((resolve) => setTimeout(resolve, random.int(5, 150)));
          }
          if (rollback) throw new PlannedRollback("planned rollback");
          if (failCommit) {
            // An enqueue outside the transaction while it is open: acknowledged only once its own row committed.
            alone = prisma.task.enqueue("soak-plain", { sleepMs: 0, failTimes: 0 }).then(
              (task) => ({ task, at: Date.now() }),
              () => undefined,
            );
            await hooks.breakCommit(tx);
          }
          // A loaded machine may make a transaction wait for a connection longer than Prisma's 2 s default.
        }, TRANSACTION_WAITS);
        const committedAt = Date.now();
        for (const { task, delayed, children, laterSignal } of enqueued) {
          if (!task.created) continue;
          delta.committed.push({ id: task.id, name: task.name, committedAt, delayed, ...(children !== undefined && { children }) });
          if (laterSignal) awaitingSignal.push(task.id);
        }
      } catch (error) {
        const planned = error instanceof PlannedRollback;
        if (!planned && !failCommit && !hooks.rolledBackByDatabase(error)) throw error;
        for (const { task } of enqueued) if (task.created) delta.rolledBack.push(task.id);
        delta.rolledBackTransaction = planned;
        delta.failedTransaction = !planned;
        delta.failedCommit = failCommit;
      }
      const acknowledged = await alone;
      if (acknowledged) delta.committed.push({ id: acknowledged.task.id, name: acknowledged.task.name, committedAt: acknowledged.at, delayed: false });
      hooks.settled(delta);
      if (recentKeys.length > 200) recentKeys.splice(0, 100);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, loop));
}
