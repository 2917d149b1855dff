// Sweep step 2: tasks whose worker stopped renewing the lease. Each goes back to pending or to dead by its task's
// recovery policy ("retry" by default, "dead", or a function that may enqueue a compensating task first).

import type { RecoveryFunction } from "../define-tasks.js";
import type { Logger } from "../logger.js";
import { deadTaskNotification } from "../wakeups/dead-task-notification.js";
import type { TaskRecord } from "../store/task-record.js";
import type { RecoveredTask } from "../store/task-writes.js";
import type { SweepContext } from "./sweep.js";
import { telemetry } from "../telemetry/telemetry.js";

interface RecoveryCounts {
  retried: number;
  dead: number;
  /** Wake-ups confirmed for the tasks put back to pending. */
  published: number;
}

/** Recovers expired leases in batches. */
export async function recoverExpiredLeases(ctx: SweepContext): Promise<RecoveryCounts> {
  const { store, options } = ctx;
  const counts: RecoveryCounts = { retried: 0, dead: 0, published: 0 };
  const startedAt = performance.now();
  const startedAtMs = Date.now();
  for (;;) {
    const rows = await store.findExpiredLeases(options.batchSize);
    if (rows.length === 0) break;
    const retry: string[] = [];
    const abandon: string[] = [];
    const custom: Array<{ row: TaskRecord; decide: RecoveryFunction<unknown> }> = [];
    for (const row of rows) {
      const recovery = policyOf(options.tasks, row.name);
      if (typeof recovery === "function") custom.push({ row, decide: recovery });
      else if (recovery === "dead") abandon.push(row.id);
      else retry.push(row.id);
    }
    const changed: RecoveredTask[] = [];
    if (retry.length > 0) changed.push(...(await store.requeueExpired(retry)));
    if (abandon.length > 0) changed.push(...(await store.abandonExpired(abandon)));
    for (const { row, decide } of custom) changed.push(...(await recoverWithFunction(ctx, row, decide)));
    await settle(ctx, changed, counts);
    await wakeParents(ctx, changed, new Map(rows.map((row) => [row.id, row.parentId])));
    telemetry()?.leasesRecovered(startedAtMs, changed);
    if (rows.length < options.batchSize || !ctx.more(startedAt)) break;
  }
  return counts;
}

function policyOf(tasks: SweepContext["options"]["tasks"], name: string): "retry" | "dead" | RecoveryFunction<unknown> {
  // A task this registry does not define (another app version wrote it) is retried: the safe default.
  return Object.hasOwn(tasks, name) ? (tasks[name]?.recovery ?? "retry") : "retry";
}

/** How long a cleaner holds an expired task while its recovery function decides; past it, the next sweep takes it again. */
const HOLD_MS = 60_000;

/**
 * Runs the task's recovery function while the cleaner holds the task's lease (no late worker can complete it in
 * between), outside any transaction, so the function may enqueue through the app's client even on SQLite, whose one
 * writer a transaction would keep. Then applies the decision to the held task. A function that throws or answers
 * something else leaves the task dead (reason "recovery-failed"), visible to an operator who can retry it.
 */
async function recoverWithFunction(ctx: SweepContext, row: TaskRecord, decide: RecoveryFunction<unknown>): Promise<RecoveredTask[]> {
  const { store, options } = ctx;
  const logger = taskLogger(ctx.logger, row);
  const holder = `cleaner:${process.pid}:recovery`;
  const task = await store.holdExpiredLease(row.id, holder, HOLD_MS);
  if (!task) return [];
  const held = { holder, formerOwner: task.leaseOwner };
  let decision: unknown;
  let failure: string | undefined;
  try {
    decision = await decide(task, { prisma: options.prisma, logger });
    if (decision !== "retry" && decision !== "dead") failure = `the recovery function returned ${JSON.stringify(decision)}, not "retry" or "dead"`;
  } catch (error) {
    failure = `the recovery function threw: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (failure) {
    logger.error("recovery function failed; the task goes to dead", { error: failure });
    const dead = await store.abandonExpired([task.id], failure, held);
    return dead.map((recovered) => Object.assign(recovered, { reason: "recovery-failed" }));
  }
  return decision === "retry" ? store.requeueExpired([task.id], held) : store.abandonExpired([task.id], undefined, held);
}

/** Logs each change, wakes the tasks that are pending again, and notifies the dead-letter exchange of the dead ones. */
async function settle(ctx: SweepContext, changed: Array<RecoveredTask & { reason?: string }>, counts: RecoveryCounts): Promise<void> {
  const requeued = changed.filter((task) => task.status === "pending");
  const dead = changed.filter((task) => task.status === "dead");
  for (const task of requeued) {
    counts.retried += 1;
    ctx.logger.info("lease expired; task back to pending", fields(task));
  }
  if (requeued.length > 0 && ctx.transport.publishes && ctx.transport.reachable) counts.published += await ctx.sender.sendAndCount(requeued);
  for (const task of dead) {
    counts.dead += 1;
    ctx.logger.warn("lease expired; task dead", { ...fields(task), lastError: task.lastError });
    await notify(ctx, task);
  }
}

/**
 * A workflow's child this recovery made dead ends the parent's wait: the parent is made due now (when it waits for its
 * children) and woken, as a worker does for a child's end it writes. Should this fail, the parent's recheck notices.
 */
async function wakeParents(ctx: SweepContext, changed: readonly RecoveredTask[], parents: ReadonlyMap<string, string | null>): Promise<void> {
  const waiting = new Set(changed.flatMap((task) => (task.status === "dead" && parents.get(task.id) ? [parents.get(task.id)!] : [])));
  for (const parentId of waiting) {
    try {
      const woken = await ctx.store.wakeParent(parentId);
      if (woken && ctx.transport.publishes && ctx.transport.reachable) await ctx.sender.sendAndCount([woken]);
    } catch (error) {
      ctx.logger.warn("could not wake the workflow of a child that went dead; its recheck will notice", { taskId: parentId, error: (error as Error).message });
    }
  }
}

async function notify(ctx: SweepContext, task: RecoveredTask & { reason?: string }): Promise<void> {
  if (!ctx.transport.notifiesDead) return;
  try {
    await ctx.sender.notifyDead(deadTaskNotification(task, "lease-expired"));
  } catch (error) {
    ctx.logger.warn("dead-letter notification not sent; the task is dead in the database", {
      taskId: task.id,
      error: (error as Error).message,
    });
  }
}

function fields(task: RecoveredTask) {
  return { taskId: task.id, taskName: task.name, queue: task.queue, attempts: task.attempts, maxAttempts: task.maxAttempts, leaseOwner: task.leaseOwner };
}

function taskLogger(logger: Logger, row: TaskRecord): Logger {
  const base = { taskId: row.id, taskName: row.name };
  return {
    debug: (message, extra) => logger.debug(message, { ...base, ...extra }),
    info: (message, extra) => logger.info(message, { ...base, ...extra }),
    warn: (message, extra) => logger.warn(message, { ...base, ...extra }),
    error: (message, extra) => logger.error(message, { ...base, ...extra }),
  };
}
