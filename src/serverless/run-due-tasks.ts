// runDueTasks(): one bounded pass of the queue's work, for platforms where no process lives between requests (a cron
// route on Vercel, an AWS Lambda on an EventBridge schedule, a Netlify scheduled function, any HTTP ping). It looks
// for work in two statements (one probe: the queues' limits, whether a lease expired, the schedules' last slots; then
// a claim of due tasks that counts the limited queues); when there is any, one cleaner sweep recovers expired leases,
// fires due schedule slots and prunes; then it claims and runs due tasks until none is left or the budget is spent. It starts only tasks whose
// timeout fits in what is left, and their leases outlast the budget, so a task never outlives the call that claimed
// it and never needs a heartbeat. Overlapping calls claim different tasks (a claim is exclusive): none runs twice.

import { createCleaner, type CleanerPass } from "../cleaner/create-cleaner.js";
import type { TaskRegistry } from "../define-tasks.js";
import { TaskQueueConfigError } from "../errors.js";
import { silentLogger, type Logger } from "../logger.js";
import { openStore } from "../open-store.js";
import { registrySchedules } from "../schedules/task-schedule.js";
import type { Store } from "../store/store.js";
import type { TaskRecord } from "../store/task-record.js";
import type { ScheduleMark, WorkProbe } from "../store/work-probe.js";
import { valueText } from "../value-text.js";
import { resolveWorkerOptions, type ResolvedWorkerOptions } from "../worker/worker-options.js";
import { DueRuns, LEASE_MARGIN_MS } from "./due-runs.js";
import { MAX_BUDGET_MS, MIN_BUDGET_MS } from "./budget.js";

/** Options of runDueTasks(). */
export interface RunDueTasksOptions<Tasks extends TaskRegistry = TaskRegistry> {
  tasks: Tasks;
  /** The database, when no `store` is given. Through a pooler (PgBouncer in transaction mode) also give `directUrl`. */
  databaseUrl?: string;
  /** A store of the app's own (openStore), kept open: for a call per request, open it once per process and reuse it. */
  store?: Store;
  /** PostgreSQL behind a pooler: a direct URL for the cleaner's leader lock. */
  directUrl?: string;
  /**
   * The app's Prisma client extended with taskQueue(), for transactional tasks (ctx.tx) and handlers that use
   * ctx.prisma; or a function that returns it, called at each call (a route module then creates no client when it is
   * imported, as `next build` does).
   */
  prisma?: unknown;
  /**
   * How long the call may take, in ms: the platform's function time limit minus what the response needs. Tasks
   * start only while their timeout fits in what is left. 1,000 to 900,000 (15 minutes).
   */
  budgetMs: number;
  /** Tasks run at once. Default 4. */
  concurrency?: number;
  /** The queues served. Default: every queue of the handled tasks. */
  queues?: string[];
  /** Run the cleaner's sweep when there is work (recover expired leases, fire schedule slots, prune). Default true. */
  sweep?: boolean;
  table?: string;
  logger?: Logger;
}

/** What one call did. */
export interface DueTasksSummary {
  /** Tasks claimed and run (each once). */
  ran: number;
  succeeded: number;
  /** Runs that failed (the task retries later, or is dead). */
  failed: number;
  /**
   * Why the call ended: "idle" (no due task left that it handles), "budget" (due tasks wait whose timeout no longer
   * fits: the next call takes them).
   */
  ended: "idle" | "budget";
  /** The cleaner's sweep, when there was work and this call led (null otherwise). */
  sweep: Pick<CleanerPass, "fired" | "retried" | "dead" | "pruned" | "errors"> | null;
  durationMs: number;
}

/** What is kept back from the budget for the outcomes' writes after the last handler ends. */
const WRITE_MARGIN_MS = 500;

export async function runDueTasks<Tasks extends TaskRegistry>(options: RunDueTasksOptions<Tasks>): Promise<DueTasksSummary> {
  const startedAt = performance.now();
  const budgetMs = checkBudget(options.budgetMs);
  const worker = resolveWorkerOptions({
    tasks: options.tasks,
    ...(options.store ? { store: options.store } : { databaseUrl: options.databaseUrl }),
    prisma: typeof options.prisma === "function" ? (options.prisma as () => unknown)() : options.prisma,
    concurrency: options.concurrency ?? 4,
    queues: options.queues,
    table: options.table,
    wakeups: "polling",
    leaseMs: budgetMs + LEASE_MARGIN_MS,
    logger: options.logger ?? silentLogger,
  });
  const store = options.store ?? openStore(worker.databaseUrl!, { table: options.table, max: 2, directUrl: options.directUrl });
  try {
    const deadline = startedAt + budgetMs - WRITE_MARGIN_MS;
    const runs = new DueRuns(worker, store, deadline);
    // The probe first (a limited queue's tasks are claimed only by a claim that counts them); then the first claim
    // looks for due tasks: those it took run while the sweep (if any) goes on.
    const probe = await store.probeWork();
    runs.useLimits(probe.queues);
    const first = await runs.claimFitting();
    const sweep = options.sweep === false ? null : await sweepWhenNeeded(options, worker, store, probe, first);
    // Slots fired and leases recovered made tasks due: claim them now.
    const more = sweep !== null && sweep.fired + sweep.retried > 0 ? await runs.claimFitting() : [];
    const ended = await runs.drain(first.length + more.length);
    return { ran: runs.ran, succeeded: runs.succeeded, failed: runs.failed, ended, sweep, durationMs: Math.round(performance.now() - startedAt) };
  } finally {
    if (!options.store) await store.close();
  }
}

/**
 * The cleaner's sweep when there is anything for it: tasks claimed (finished rows to prune), an expired lease, or a
 * schedule slot due, as the probe found them. Nothing due costs no statement here.
 */
async function sweepWhenNeeded(
  options: RunDueTasksOptions,
  worker: ResolvedWorkerOptions,
  store: Store,
  probe: WorkProbe,
  claimed: readonly TaskRecord[],
): Promise<DueTasksSummary["sweep"]> {
  if (claimed.length === 0 && !probe.expiredLease && !slotDue(worker.tasks, probe.schedules)) return null;
  const cleaner = createCleaner({ tasks: options.tasks, store, prisma: worker.prisma, wakeups: "polling", logger: worker.logger, directUrl: options.directUrl });
  try {
    const pass = await cleaner.runOnce();
    return pass.leader ? { fired: pass.fired, retried: pass.retried, dead: pass.dead, pruned: pass.pruned, errors: pass.errors } : null;
  } finally {
    await cleaner.stop();
  }
}

/** True when a schedule of the registry has a slot after its last one at or before now (or was never fired). */
function slotDue(tasks: TaskRegistry, marks: readonly ScheduleMark[]): boolean {
  const schedules = registrySchedules(tasks);
  if (schedules.length === 0) return false;
  const rows = new Map(marks.map((mark) => [mark.schedule, mark]));
  const now = new Date();
  return schedules.some((schedule) => {
    const row = rows.get(schedule.id);
    if (!row) return true;
    const next = schedule.slots.next(row.lastSlot);
    return next !== null && next.getTime() <= now.getTime();
  });
}

function checkBudget(value: unknown): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < MIN_BUDGET_MS || value > MAX_BUDGET_MS) {
    throw new TaskQueueConfigError(
      "budgetMs",
      `must be an integer from ${MIN_BUDGET_MS} to ${MAX_BUDGET_MS} ms (the function's time limit minus what the response needs, e.g. 50000 for a 60 s function), got ${valueText(value)}.`,
    );
  }
  return value;
}
