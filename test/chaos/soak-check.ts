// The soak's verdict: the guarantees checked from the database and the handlers' run log after the system settled,
// plus coverage checks so a soak that injected too little cannot pass, and the summary table it prints.

import type { SoakDatabase } from "./soak-database.js";
import type { FaultCounts } from "./soak-faults.js";
import type { LoadRecord } from "./soak-load.js";
import { checkControls, type PauseWindow } from "./soak-check-controls.js";
import { checkWorkflows } from "./soak-check-workflows.js";
import { checkSchedules } from "./soak-check-schedules.js";
import { readRunLog, type Run } from "./soak-runlog.js";
import { SOAK_LIMITS } from "./soak-tasks.js";

/** A host cut off, by the machine's clock. */
export interface HostCutWindow {
  from: number;
  to: number;
}

export interface SoakFindings {
  violations: string[];
  /** Tasks that ran again because the worker running them was SIGKILLed: allowed, and listed. */
  rerunsAfterKill: Array<{ id: string; killedPid: number; attempt: number }>;
  /** Tasks that ran again because the host of the worker running them was cut off (--hosts): allowed, and listed. */
  rerunsAfterCut: Array<{ id: string; cutPid: number; attempt: number }>;
  /** Task ids a violation names, for the debug dump. */
  suspects: string[];
  summary: Array<[string, string]>;
}

/** What the orchestrator saw while the soak ran. */
export interface SoakObservations {
  load: LoadRecord;
  runLogDir: string;
  /** SIGKILLed worker pids, with when the kill was sent (ms since epoch). */
  killedWorkers: Map<number, number>;
  /** Pids of processes whose host was cut off from the database and the broker, with from when to when (--hosts). */
  cutOff?: ReadonlyMap<number, readonly HostCutWindow[]>;
  /** Worker kills that hit a process with at least one handler running. */
  killsMidTask: number;
  /** Ids of wake-ups for tasks that never existed. */
  phantomIds: string[];
  /** The pause fault's windows, by the database clock. */
  pauses: PauseWindow[];
  faults: FaultCounts;
  /** "lease expired; task back to pending|dead" lines of all cleaners. */
  recoveries: number;
  /** "task lease lost" lines of workers that were never killed, with the task ids. */
  leaseLossesOnLiveWorkers: string[];
  /** Messages left in the wake-up queue after settling. */
  queueDepth: number;
}

/** Minimums a soak must reach to count: without them it could pass without testing anything. */
export interface SoakMinimums {
  committedTasks: number;
  retries: number;
  killsMidTask: number;
  rerunsAfterKill: number;
  recoveries: number;
  earlyWakeups: number;
  faultsPerKind: number;
  /** Slot rows of the recurring schedules. */
  scheduleSlots: number;
  /** Starts of the limited queue, and of the rate-limited one (each). */
  limitedStarts: number;
  /** Workflows finished, and children they started. */
  workflows: number;
}

export async function checkSoak(db: Pick<SoakDatabase, "prisma">, seen: SoakObservations, minimums: SoakMinimums): Promise<SoakFindings> {
  const { load } = seen;
  const violations: string[] = [];
  const suspects = new Set<string>();
  const flag = (id: string, text: string) => {
    suspects.add(id);
    violations.push(text);
  };
  const rerunsAfterKill: SoakFindings["rerunsAfterKill"] = [];
  const rerunsAfterCut: SoakFindings["rerunsAfterCut"] = [];
  const runs = readRunLog(seen.runLogDir);
  // Every row of the soak's own table, read through the Prisma model (the same on every dialect).
  const all = await db.prisma.task.findMany({
    select: { id: true, name: true, status: true, attempts: true, maxAttempts: true, result: true, finishedAt: true, parentId: true },
  });
  const allIds = new Map(all.map((row) => [row.id, row]));
  const rows = all.filter((row) => load.committed.has(row.id));
  const byId = new Map(rows.map((row) => [row.id, row]));
  const effects = await db.prisma.$queryRaw<Array<{ id: string; attempt: number | bigint }>>`SELECT task_id AS id, attempt FROM soak_effects`;
  const effectAttempts = new Map<string, number[]>();
  for (const row of effects) effectAttempts.set(row.id, [...(effectAttempts.get(row.id) ?? []), Number(row.attempt)]);

  // 1. Zero lost: every committed task has its row and reached the final state its handler leads to.
  for (const [id, task] of load.committed) {
    const row = byId.get(id);
    if (!row) {
      flag(id, `committed task ${id} (${task.name}) has no row`);
      continue;
    }
    const expected = task.name === "soak-doomed" ? "dead" : "succeeded";
    if (row.status !== expected) flag(id, `committed task ${id} (${task.name}) ended ${row.status} after ${row.attempts} attempts, not ${expected}`);
    else if (expected === "dead" && row.attempts !== row.maxAttempts) flag(id, `doomed task ${id} is dead after ${row.attempts} of ${row.maxAttempts} attempts`);
    else if (task.name === "soak-plain" && (row.result as { attempt?: number } | null)?.attempt !== row.attempts) {
      flag(id, `task ${id} succeeded with attempt ${row.attempts} but its stored result is from attempt ${(row.result as { attempt?: number } | null)?.attempt}`);
    }
  }

  // 2. No rolled-back task has a row or ever ran; no phantom wake-up ran anything.
  for (const id of [...load.rolledBack, ...seen.phantomIds]) if (allIds.has(id)) flag(id, `rolled-back or phantom task ${id} has a row`);
  for (const id of [...load.rolledBack, ...seen.phantomIds]) if (runs.has(id)) flag(id, `rolled-back or phantom task ${id} ran`);

  // 2b. Recurring tasks: one task per slot, each run, no slot missed (soak-check-schedules.ts). Every task that ran was
  //     committed by the load or created by a slot.
  const scheduled = await checkSchedules(db, allIds, runs, flag, (text) => violations.push(text));
  // A workflow's children were created by it, not by the load: soak-check-workflows.ts holds them to their parents.
  const childName = (id: string) => {
    const row = allIds.get(id);
    return row?.parentId ? row.name : undefined;
  };
  const nameOf = (id: string) => load.committed.get(id)?.name ?? scheduled.slotTasks.get(id) ?? childName(id);
  const excused = new Set([...load.rolledBack, ...seen.phantomIds]);
  const unslotted = (id: string) => scheduled.scheduledNames.has(allIds.get(id)?.name ?? ""); // reported above
  for (const id of runs.keys()) if (!nameOf(id) && !excused.has(id) && !unslotted(id)) flag(id, `task ${id} ran, but neither the load nor a schedule's slot created it`);

  // 3. A task runs again only after a recorded failure, a commit that did not happen, its worker's SIGKILL, or its
  //    worker's host cut off while it ran (its handler may go on there: what counts is that its outcome never lands,
  //    which checks 1 and 4 see); never while another run of it is still going; attempts only grow.
  let commitsFailed = 0;
  for (const [id, list] of runs) {
    const name = nameOf(id);
    if (!name) continue;
    for (let i = 1; i < list.length; i++) {
      const before = list[i - 1]!;
      const after = list[i]!;
      const what = `task ${id} (${name}) ran again (attempt ${after.attempt}, pid ${after.pid}) after attempt ${before.attempt} on pid ${before.pid}`;
      // A workflow's sleep or wait ends its run without counting an attempt: the next run has the same one.
      const resumed = before.end?.e === "suspend" && after.attempt === before.attempt;
      if (after.attempt <= before.attempt && !resumed) flag(id, `${what}: the attempt number did not grow`);
      const killedAt = seen.killedWorkers.get(before.pid);
      if (after.attempt > before.attempt && cutWhileRunning(seen.cutOff?.get(before.pid), before, after)) {
        rerunsAfterCut.push({ id, cutPid: before.pid, attempt: before.attempt });
        continue;
      }
      if (before.end && after.start < before.end.t) flag(id, `${what} while that run was still going`);
      if (!before.end) {
        if (killedAt === undefined) flag(id, `${what}, which had not ended and whose worker was not killed`);
        else if (after.start < killedAt) flag(id, `${what} before that worker was killed`);
        else rerunsAfterKill.push({ id, killedPid: before.pid, attempt: before.attempt });
        continue;
      }
      if (before.end.e === "fail" || before.end.e === "suspend") continue;
      if (before.end.e === "abort") {
        if (!before.end.reason?.startsWith("TaskTimeoutError")) flag(id, `${what}, which was aborted (${before.end.reason})`);
        continue;
      }
      // The handler returned. A transactional one may still have failed to commit (then it left no effect row).
      const committed = name === "soak-tx" ? (effectAttempts.get(id) ?? []).includes(before.attempt) : true;
      if (name === "soak-tx" && !committed) commitsFailed++;
      else if (killedAt !== undefined && after.start >= killedAt) rerunsAfterKill.push({ id, killedPid: before.pid, attempt: before.attempt });
      else flag(id, `${what}, which had succeeded`);
    }
  }
  for (const id of seen.leaseLossesOnLiveWorkers) flag(id, `task ${id} lost its lease on a worker that was never killed`);

  // 4. Transactional effects: exactly one per succeeded soak-tx task, from its last attempt; exactly one per succeeded
  //    workflow (its transactional step, from whichever attempt recorded it); none for any other.
  for (const [id, attempts] of effectAttempts) {
    const row = byId.get(id);
    if (attempts.length > 1) flag(id, `transactional task ${id} applied its writes ${attempts.length} times (attempts ${attempts.join(", ")})`);
    else if (!row || row.status !== "succeeded") flag(id, `task ${id} has a transactional effect but is ${row?.status ?? "missing"}`);
    else if (attempts[0] !== row.attempts && row.name !== "soak-workflow") {
      flag(id, `transactional task ${id} succeeded on attempt ${row.attempts} but its effect is from attempt ${attempts[0]}`);
    }
  }
  for (const [id, task] of load.committed) {
    if ((task.name === "soak-tx" || task.name === "soak-workflow") && byId.get(id)?.status === "succeeded" && !effectAttempts.has(id)) {
      flag(id, `transactional task ${id} (${task.name}) succeeded without its effect`);
    }
  }

  // 4b. Queue controls: no limit exceeded, nothing claimed while paused (soak-check-controls.ts).
  const controls = checkControls(
    runs,
    seen.killedWorkers,
    seen.pauses,
    flag,
    (text) => violations.push(text),
    (run) => cutDuring(seen.cutOff?.get(run.pid), run),
    (id) => suspects.add(id),
  );

  // 4c. Workflows: events only from committed transactions, the one sent with the enqueue always; children once each.
  const workflows = checkWorkflows(load, all, flag);

  // 5. Nothing stuck, the queue empty, no rows leaked.
  for (const row of all) if (row.status === "pending" || row.status === "running") flag(row.id, `task ${row.id} is still ${row.status}`);
  if (seen.queueDepth > 0) violations.push(`${seen.queueDepth} wake-ups left in the broker's queue`);
  const reports = await db.prisma.report.count();
  const expectedRows = load.committed.size + scheduled.slotTasks.size + workflows.children;
  if (all.length !== expectedRows) {
    violations.push(
      `${all.length} task rows for ${load.committed.size} committed tasks, ${scheduled.slotTasks.size} fired slots and ${workflows.children} workflows' children`,
    );
  }
  if (reports !== load.committedTransactions) violations.push(`${reports} business rows for ${load.committedTransactions} committed transactions`);

  // 6. Coverage: the soak really did what it claims.
  const retries = rows.reduce((sum, row) => sum + Math.max(0, row.attempts - 1), 0);
  const coverage: Array<[string, number, number]> = [
    ["committed tasks", load.committed.size, minimums.committedTasks],
    ["retries", retries, minimums.retries],
    ["worker kills with a task in flight", seen.killsMidTask, minimums.killsMidTask],
    ["re-runs after a SIGKILLed worker", rerunsAfterKill.length, minimums.rerunsAfterKill],
    ["lease recoveries by the cleaner", seen.recoveries, minimums.recoveries],
    ["wake-ups before commit", load.earlyWakeups, minimums.earlyWakeups],
    ["commits failed on purpose", load.failedCommits, minimums.faultsPerKind],
    ["schedule slots fired", scheduled.slotsFired, minimums.scheduleSlots],
    ["starts of the limited queue", controls.limitedStarts, minimums.limitedStarts],
    ["starts of the rate-limited queue", controls.ratedStarts, minimums.limitedStarts],
    ["workflows finished", workflows.finished, minimums.workflows],
    ["events received by workflows from a later transaction", workflows.eventsLater, minimums.faultsPerKind],
    ["workflows' children", workflows.children, minimums.workflows],
    ...Object.entries(seen.faults).map(([kind, n]): [string, number, number] => [`fault ${kind}`, n, minimums.faultsPerKind]),
  ];
  for (const [what, got, least] of coverage) if (got < least) violations.push(`coverage: ${what} ${got}, fewer than the ${least} required`);

  const latency = (filter: (row: (typeof rows)[number]) => boolean) =>
    rows
      // A workflow's sleeps and waits are its own: commit → finish measures the tasks that run straight through.
      .filter((row) => row.finishedAt && !load.committed.get(row.id)!.delayed && row.name !== "soak-workflow" && filter(row))
      .map((row) => row.finishedAt!.getTime() - load.committed.get(row.id)!.committedAt)
      .sort((a, b) => a - b);
  const everyRun = latency(() => true);
  const first = latency((row) => row.attempts === 1);
  const summary: Array<[string, string]> = [
    ["transactions", `${load.transactions} (${load.rolledBackTransactions} rolled back on purpose, ${load.failedTransactions} failed by the database)`],
    ["tasks committed", String(load.committed.size)],
    ["tasks rolled back", String(load.rolledBack.size)],
    ["keyed duplicates returned", String(load.duplicates)],
    ["wake-ups before commit", String(load.earlyWakeups)],
    ["commits failed on purpose (a deferred key; MySQL: the connection killed), each with an enqueue beside it", String(load.failedCommits)],
    ...Object.entries(seen.faults).map(([kind, n]) => [`fault: ${kind}`, String(n)] as [string, string]),
    ["worker kills with a task in flight", String(seen.killsMidTask)],
    ["schedule slots fired", String(scheduled.slotsFired)],
    [
      "limited queue: starts, most at once (limit)",
      `${controls.limitedStarts}, ${controls.mostLimitedAtOnce} (${SOAK_LIMITS.queue}; ${SOAK_LIMITS.perAccount} per account)`,
    ],
    [
      "rate-limited queue: starts, most in one window (limit)",
      `${controls.ratedStarts}, ${controls.mostRatedInWindow} (${SOAK_LIMITS.rate.starts} per ${SOAK_LIMITS.rate.perMs} ms)`,
    ],
    ["pauses of a queue; its claims while paused", `${seen.pauses.length}; ${controls.pausedStarts}`],
    [
      "workflows: committed, finished; events received (sent with the enqueue, later); waits timed out; events rolled back; children",
      `${workflows.workflows}, ${workflows.finished}; ${workflows.eventsInOwnTransaction}, ${workflows.eventsLater}; ${workflows.timedOut}; ${workflows.rolledBackEvents}; ${workflows.children}`,
    ],
    ["handler runs", String([...runs.values()].reduce((sum, list) => sum + list.length, 0))],
    ["retries (attempts beyond the first)", String(retries)],
    ["transactional commits that failed (recorded as failures)", String(commitsFailed)],
    ["lease recoveries by the cleaner", String(seen.recoveries)],
    ["re-runs after a SIGKILLed worker", String(rerunsAfterKill.length)],
    ...(seen.cutOff ? [["re-runs after a worker's host was cut off", String(rerunsAfterCut.length)] as [string, string]] : []),
    ["commit → finish p50 / p99 / max (ms), all", spread(everyRun)],
    ["commit → finish p50 / p99 / max (ms), first attempt", spread(first)],
    ["violations", String(violations.length)],
  ];
  return { violations, rerunsAfterKill, rerunsAfterCut, suspects: [...suspects], summary };
}

/**
 * How long after its handler returned a run's outcome may still be on its way to the database when its host is cut
 * off, so that the task runs again: a worker retries writing an outcome until its lease would have expired (the soak's
 * lease, SOAK_LEASE_MS).
 */
const OUTCOME_IN_FLIGHT_MS = 15_000;

/**
 * When the host of `run` was cut off while the run held its task: claimed (by the database clock) before the host came
 * back, a claim whose answer the cut held up included, and its handler running or its outcome on the way at the cut.
 */
export function cutDuring(cuts: readonly HostCutWindow[] | undefined, run: Run): number | undefined {
  const claimed = run.claimedAt ?? run.start;
  return cuts?.find((cut) => claimed <= cut.to && (!run.end || run.end.t + OUTCOME_IN_FLIGHT_MS >= cut.from))?.from;
}

/** The run `after` began after the host of `before` was cut off while `before` held the task. */
function cutWhileRunning(cuts: readonly HostCutWindow[] | undefined, before: Run, after: Run): boolean {
  const at = cutDuring(cuts, before);
  return at !== undefined && after.start >= at;
}

function spread(sorted: number[]): string {
  const at = (p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]! : 0);
  return `${Math.round(at(0.5))} / ${Math.round(at(0.99))} / ${Math.round(sorted.at(-1) ?? 0)}`;
}

export function summaryTable(summary: Array<[string, string]>): string {
  return ["| measure | value |", "| --- | --- |", ...summary.map(([k, v]) => `| ${k} | ${v} |`)].join("\n");
}

/** Runs of a task, one line each, for the debug dump. */
export function describeRuns(list: Run[] | undefined): string[] {
  return (list ?? []).map(
    (run) =>
      `  run attempt ${run.attempt} pid ${run.pid} start ${new Date(run.start).toISOString()} ` +
      (run.end ? `${run.end.e} ${new Date(run.end.t).toISOString()}${run.end.reason ? ` (${run.end.reason})` : ""}` : "no end"),
  );
}
