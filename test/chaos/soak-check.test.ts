// The soak's checker, tested on made-up histories: every kind of broken guarantee is reported, allowed re-runs are
// listed instead, and a soak that did too little fails its coverage. A checker that cannot fail proves nothing.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { checkSoak, type SoakMinimums, type SoakObservations } from "./soak-check.js";
import { COMMON_FAULT_KINDS, emptyFaultCounts } from "./soak-faults.js";
import { emptyLoadRecord, type LoadRecord } from "./soak-load.js";
import { createSoakEffects } from "./soak-database.js";
import { soakPrisma, type SoakPrisma } from "./soak-prisma.js";
import type { RunEvent } from "./soak-tasks.js";

let db: TestDatabase;
let sql: pg.Pool;
let prisma: SoakPrisma;
let dir: string;
let load: LoadRecord;
const NONE: SoakMinimums = {
  committedTasks: 0,
  retries: 0,
  killsMidTask: 0,
  rerunsAfterKill: 0,
  recoveries: 0,
  earlyWakeups: 0,
  faultsPerKind: 0,
  scheduleSlots: 0,
  limitedStarts: 0,
  workflows: 0,
};

beforeAll(async () => {
  db = await createTestDatabase();
  sql = new pg.Pool({ connectionString: db.url, max: 2 });
  prisma = soakPrisma(db.url);
  await createSoakEffects(prisma);
});

beforeEach(async () => {
  await sql.query("TRUNCATE tasks, reports, soak_effects, tasks_schedules, tasks_schedule_slots");
  dir = mkdtempSync(join(tmpdir(), "ptq-soak-check-"));
  load = emptyLoadRecord();
  return () => rmSync(dir, { recursive: true, force: true });
});

afterAll(async () => {
  await sql?.end();
  await prisma?.$disconnect();
  await db?.drop();
});

/** A committed task with its final row. */
async function task(name: string, status: string, attempts: number, extra: { result?: unknown; maxAttempts?: number } = {}): Promise<string> {
  const id = crypto.randomUUID();
  await sql.query("INSERT INTO tasks (id, name, payload, status, attempts, max_attempts, result, finished_at) VALUES ($1, $2, '{}', $3, $4, $5, $6, now())", [
    id,
    name,
    status,
    attempts,
    extra.maxAttempts ?? 12,
    JSON.stringify(extra.result ?? null),
  ]);
  load.committed.set(id, { name, committedAt: Date.now() - 1000, delayed: false });
  return id;
}

/** A committed workflow (its final row, its effect row from `effectAttempt`) with `children` succeeded child rows. */
async function workflow(result: { event: string | null; waited: boolean; children: number }, children: number, effectAttempt = 1): Promise<string> {
  const id = await task("soak-workflow", "succeeded", 1, { result });
  load.committed.set(id, { ...load.committed.get(id)!, children });
  await sql.query("INSERT INTO soak_effects (task_id, attempt, pid) VALUES ($1, $2, 1)", [id, effectAttempt]);
  for (let i = 0; i < children; i++) {
    await sql.query(
      "INSERT INTO tasks (id, name, payload, status, attempts, result, finished_at, parent_id) VALUES ($1, 'soak-plain', '{}', 'succeeded', 1, $2, now(), $3)",
      [crypto.randomUUID(), JSON.stringify({ attempt: 1 }), id],
    );
  }
  return id;
}

function runs(...events: Array<Omit<RunEvent, "e"> & { e: RunEvent["e"] }>): void {
  for (const event of events) writeFileSync(join(dir, `runs-${event.pid}.jsonl`), `${JSON.stringify(event)}\n`, { flag: "a" });
}

function observations(overrides: Partial<SoakObservations> = {}): SoakObservations {
  load.committedTransactions = 0;
  return {
    load,
    runLogDir: dir,
    killedWorkers: new Map(),
    killsMidTask: 0,
    phantomIds: [],
    pauses: [],
    faults: emptyFaultCounts(COMMON_FAULT_KINDS),
    recoveries: 0,
    leaseLossesOnLiveWorkers: [],
    queueDepth: 0,
    ...overrides,
  };
}

it("passes a clean history and lists a re-run after a SIGKILL instead of reporting it", async () => {
  const plain = await task("soak-plain", "succeeded", 2, { result: { attempt: 2 } });
  const killed = await task("soak-plain", "succeeded", 2, { result: { attempt: 2 } });
  const tx = await task("soak-tx", "succeeded", 2);
  await sql.query("INSERT INTO soak_effects (task_id, attempt, pid) VALUES ($1, 2, 1)", [tx]);
  runs(
    { e: "start", id: plain, attempt: 1, pid: 1, t: 100 },
    { e: "fail", id: plain, attempt: 1, pid: 1, t: 150, reason: "Error: planned failure 1 of 1" },
    { e: "start", id: plain, attempt: 2, pid: 2, t: 400 },
    { e: "ok", id: plain, attempt: 2, pid: 2, t: 450 },
    { e: "start", id: killed, attempt: 1, pid: 3, t: 100 },
    { e: "start", id: killed, attempt: 2, pid: 2, t: 900 },
    { e: "ok", id: killed, attempt: 2, pid: 2, t: 950 },
    // The handler returned but its transaction did not commit (no effect row for attempt 1): a failed attempt.
    { e: "start", id: tx, attempt: 1, pid: 1, t: 100 },
    { e: "ok", id: tx, attempt: 1, pid: 1, t: 120 },
    { e: "start", id: tx, attempt: 2, pid: 2, t: 500 },
    { e: "ok", id: tx, attempt: 2, pid: 2, t: 520 },
  );
  const findings = await checkSoak({ prisma }, observations({ killedWorkers: new Map([[3, 500]]) }), NONE);
  expect(findings.violations).toEqual([]);
  expect(findings.rerunsAfterKill).toEqual([{ id: killed, killedPid: 3, attempt: 1 }]);
  expect(findings.summary).toContainEqual(["transactional commits that failed (recorded as failures)", "1"]);
});

it("reports double runs, overlaps, double effects, ghosts, stuck and lost tasks, and a soak that did too little", async () => {
  const again = await task("soak-plain", "succeeded", 2, { result: { attempt: 2 } });
  const early = await task("soak-plain", "succeeded", 2, { result: { attempt: 2 } });
  const overlap = await task("soak-plain", "succeeded", 2, { result: { attempt: 2 } });
  const twice = await task("soak-tx", "succeeded", 2);
  const stuck = await task("soak-plain", "running", 1);
  const staleResult = await task("soak-plain", "succeeded", 2, { result: { attempt: 1 } });
  const lost = crypto.randomUUID();
  load.committed.set(lost, { name: "soak-plain", committedAt: 0, delayed: false });
  const ghost = crypto.randomUUID();
  load.rolledBack.add(ghost);
  await sql.query("INSERT INTO soak_effects (task_id, attempt, pid) VALUES ($1, 1, 1), ($1, 2, 2)", [twice]);
  runs(
    { e: "start", id: again, attempt: 1, pid: 1, t: 100 },
    { e: "ok", id: again, attempt: 1, pid: 1, t: 110 },
    { e: "start", id: again, attempt: 2, pid: 2, t: 300 },
    { e: "ok", id: again, attempt: 2, pid: 2, t: 310 },
    { e: "start", id: early, attempt: 1, pid: 3, t: 100 },
    { e: "start", id: early, attempt: 2, pid: 2, t: 200 },
    { e: "start", id: overlap, attempt: 1, pid: 1, t: 100 },
    { e: "fail", id: overlap, attempt: 1, pid: 1, t: 500, reason: "Error: boom" },
    { e: "start", id: overlap, attempt: 2, pid: 2, t: 300 },
    { e: "ok", id: overlap, attempt: 2, pid: 2, t: 600 },
    { e: "start", id: ghost, attempt: 1, pid: 1, t: 100 },
  );
  const findings = await checkSoak({ prisma }, observations({ killedWorkers: new Map([[3, 1000]]), leaseLossesOnLiveWorkers: [stuck], queueDepth: 2 }), {
    ...NONE,
    committedTasks: 1000,
    killsMidTask: 1,
  });
  const expected = [
    `committed task ${lost} (soak-plain) has no row`,
    `committed task ${stuck} (soak-plain) ended running after 1 attempts, not succeeded`,
    `task ${staleResult} succeeded with attempt 2 but its stored result is from attempt 1`,
    `rolled-back or phantom task ${ghost} ran`,
    `task ${again} (soak-plain) ran again (attempt 2, pid 2) after attempt 1 on pid 1, which had succeeded`,
    `task ${early} (soak-plain) ran again (attempt 2, pid 2) after attempt 1 on pid 3 before that worker was killed`,
    `task ${overlap} (soak-plain) ran again (attempt 2, pid 2) after attempt 1 on pid 1 while that run was still going`,
    `task ${stuck} lost its lease on a worker that was never killed`,
    `transactional task ${twice} applied its writes 2 times (attempts 1, 2)`,
    `task ${stuck} is still running`,
    "2 wake-ups left in the broker's queue",
    "6 task rows for 7 committed tasks, 0 fired slots and 0 workflows' children",
    "coverage: committed tasks 7, fewer than the 1000 required",
    "coverage: worker kills with a task in flight 0, fewer than the 1 required",
  ];
  expect([...findings.violations].sort()).toEqual([...expected].sort());
  expect(findings.suspects).toEqual(expect.arrayContaining([again, early, overlap, twice, stuck, lost, ghost, staleResult]));
});

it("lists a re-run after a worker's host was cut off, and reports what a cut-off worker completed after losing its task", async () => {
  // pid 7's host is cut off at t = 1000. Its runs then in progress (and one whose outcome was on its way) run again elsewhere.
  const cutOff = new Map([[7, [{ from: 1000, to: 16_000 }]]]);
  const running = await task("soak-plain", "succeeded", 2, { result: { attempt: 2 } });
  const returning = await task("soak-tx", "succeeded", 2);
  const limited = await task("soak-plain", "succeeded", 2, { result: { attempt: 2 } });
  const answeredLate = await task("soak-plain", "succeeded", 2, { result: { attempt: 2 } });
  await sql.query("INSERT INTO soak_effects (task_id, attempt, pid) VALUES ($1, 2, 2)", [returning]);
  runs(
    // Its handler went on while the task ran again on pid 2 (the cut-off worker cannot know yet), then was preempted.
    { e: "start", id: running, attempt: 1, pid: 7, t: 900 },
    { e: "start", id: running, attempt: 2, pid: 2, t: 17_000 },
    { e: "ok", id: running, attempt: 2, pid: 2, t: 17_050 },
    { e: "abort", id: running, attempt: 1, pid: 7, t: 21_000, reason: "TaskLeaseLostError: lease lost" },
    // Its handler had returned just before the cut; the commit never reached the database.
    { e: "start", id: returning, attempt: 1, pid: 7, t: 700 },
    { e: "ok", id: returning, attempt: 1, pid: 7, t: 990 },
    { e: "start", id: returning, attempt: 2, pid: 2, t: 17_000 },
    { e: "ok", id: returning, attempt: 2, pid: 2, t: 17_020 },
    // The limited queue's slot is free once the cut-off run's lease expired, though its handler still ran.
    { e: "start", id: limited, attempt: 1, pid: 7, t: 950, queue: "soak-limited", key: "a" },
    { e: "start", id: limited, attempt: 2, pid: 2, t: 17_000, queue: "soak-limited", key: "a" },
    { e: "ok", id: limited, attempt: 2, pid: 2, t: 17_010 },
    { e: "ok", id: limited, attempt: 1, pid: 7, t: 20_000 },
    // Claimed just before the cut, its answer held up until the host came back: the lease was already gone.
    { e: "start", id: answeredLate, attempt: 1, pid: 7, t: 17_500, claimedAt: 990 },
    { e: "abort", id: answeredLate, attempt: 1, pid: 7, t: 17_600, reason: "TaskLeaseLostError: lease lost" },
    { e: "start", id: answeredLate, attempt: 2, pid: 2, t: 18_000 },
    { e: "ok", id: answeredLate, attempt: 2, pid: 2, t: 18_010 },
  );
  const allowed = await checkSoak({ prisma }, observations({ cutOff }), NONE);
  expect(allowed.violations).toEqual([]);
  expect(allowed.rerunsAfterCut).toEqual([
    { id: running, cutPid: 7, attempt: 1 },
    { id: returning, cutPid: 7, attempt: 1 },
    { id: limited, cutPid: 7, attempt: 1 },
    { id: answeredLate, cutPid: 7, attempt: 1 },
  ]);

  // Back, the cut-off worker completed what it no longer held: its result and its transaction's effect landed.
  await sql.query(`UPDATE tasks SET result = '{"attempt":1}' WHERE id = $1`, [running]);
  await sql.query("INSERT INTO soak_effects (task_id, attempt, pid) VALUES ($1, 1, 7)", [returning]);
  // And a run of pid 7 that began after its host came back is no re-run after a cut.
  const late = await task("soak-plain", "succeeded", 2, { result: { attempt: 2 } });
  runs(
    { e: "start", id: late, attempt: 1, pid: 7, t: 30_000 },
    { e: "ok", id: late, attempt: 1, pid: 7, t: 30_010 },
    { e: "start", id: late, attempt: 2, pid: 2, t: 30_500 },
    { e: "ok", id: late, attempt: 2, pid: 2, t: 30_510 },
  );
  const broken = await checkSoak({ prisma }, observations({ cutOff }), NONE);
  expect([...broken.violations].sort()).toEqual(
    [
      `task ${running} succeeded with attempt 2 but its stored result is from attempt 1`,
      `transactional task ${returning} applied its writes 2 times (attempts 2, 1)`,
      `task ${late} (soak-plain) ran again (attempt 2, pid 2) after attempt 1 on pid 7, which had succeeded`,
    ].sort(),
  );
});

const EVERY_SECOND = "soak-scheduled#every-second";

/** The recurring task's schedule row: a slot every second, the last at `lastSlot`. */
async function schedule(lastSlot: Date): Promise<void> {
  await sql.query(
    "INSERT INTO tasks_schedules (schedule, task_name, cron, time_zone, last_slot, updated_at) VALUES ($1, 'soak-scheduled', '* * * * * *', 'UTC', $2, now())",
    [EVERY_SECOND, lastSlot],
  );
}

/** A slot row; without `taskId`, of a new task that ran (unless `ran` is false). Resolves the task's id. */
async function slot(at: Date, options: { taskId?: string; ran?: boolean } = {}): Promise<string> {
  const id = options.taskId ?? (await scheduledTask());
  await sql.query("INSERT INTO tasks_schedule_slots (schedule, slot, task_id) VALUES ($1, $2, $3)", [EVERY_SECOND, at, id]);
  if (!options.taskId && options.ran !== false) runs({ e: "start", id, attempt: 1, pid: 1, t: at.getTime() }, { e: "ok", id, attempt: 1, pid: 1, t: at.getTime() + 20 });
  return id;
}

/** A succeeded task of the recurring task (the load did not commit it). */
async function scheduledTask(): Promise<string> {
  const id = crypto.randomUUID();
  await sql.query("INSERT INTO tasks (id, name, payload, status, attempts, max_attempts, finished_at) VALUES ($1, 'soak-scheduled', '{}', 'succeeded', 1, 12, now())", [
    id,
  ]);
  return id;
}

const second = (n: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, n));

it("accepts a schedule whose every slot fired one task that ran, and counts the slots", async () => {
  await schedule(second(3));
  for (const n of [0, 1, 2, 3]) await slot(second(n));
  const findings = await checkSoak({ prisma }, observations(), { ...NONE, scheduleSlots: 4 });
  expect(findings.violations).toEqual([]);
  expect(findings.summary).toContainEqual(["schedule slots fired", "4"]);
});

it("reports a slot with two tasks, a task no slot created, a slot task that never ran, and missed slots", async () => {
  await schedule(second(6));
  const first = await slot(second(0));
  await slot(second(1), { taskId: first });
  const idle = await slot(second(2), { ran: false });
  // A second task for slot 2: its slot row was refused, yet the task exists and ran.
  const second2 = await scheduledTask();
  runs({ e: "start", id: second2, attempt: 1, pid: 2, t: 5000 }, { e: "ok", id: second2, attempt: 1, pid: 2, t: 5020 });
  // Slots 3 and 4 missing; 5 fired; 6 is the schedule's last slot but has no row.
  await slot(second(5));
  const stranger = crypto.randomUUID();
  runs({ e: "start", id: stranger, attempt: 1, pid: 3, t: 100 });
  const findings = await checkSoak({ prisma }, observations(), NONE);
  const expected = [
    `task ${first} is the task of slot ${second(1).toISOString()} of ${EVERY_SECOND} and of slot ${second(0).toISOString()} of ${EVERY_SECOND}`,
    `task ${idle} of slot ${second(2).toISOString()} of ${EVERY_SECOND} never ran`,
    `task ${second2} (soak-scheduled) has no slot row: a second task for a slot, or one no firing created`,
    `${EVERY_SECOND} missed 3 slots between its first and last (${[3, 4, 6].map((n) => second(n).toISOString()).join(", ")})`,
    `task ${stranger} ran, but neither the load nor a schedule's slot created it`,
    "4 task rows for 0 committed tasks, 3 fired slots and 0 workflows' children",
  ];
  expect([...findings.violations].sort()).toEqual([...expected].sort());
  expect(findings.suspects).toEqual(expect.arrayContaining([first, idle, second2, stranger]));
});

it("fails a soak in which no slot fired", async () => {
  const findings = await checkSoak({ prisma }, observations(), { ...NONE, scheduleSlots: 1 });
  expect(findings.violations).toEqual(["coverage: schedule slots fired 0, fewer than the 1 required"]);
  expect(findings.summary).toContainEqual(["schedule slots fired", "0"]);
});

/** A committed task of `name` that succeeded on attempt 1. */
const done = (name: string) => task(name, "succeeded", 1);

it("accepts runs that keep every queue control, a SIGKILLed run's slot ending at the kill", async () => {
  const [a, b, c, d] = await Promise.all(["soak-account", "soak-account", "soak-account", "soak-account"].map(done));
  const rated = await Promise.all(Array.from({ length: 6 }, () => done("soak-rated")));
  const paused = await done("soak-pausable");
  const limited = { queue: "soak-limited" };
  runs(
    // Three at once on the queue (its limit), one per account; d starts on another worker after c's was killed.
    { e: "start", id: a!, attempt: 1, pid: 1, t: 100, ...limited, key: "acme" },
    { e: "start", id: b!, attempt: 1, pid: 1, t: 110, ...limited, key: "globex" },
    { e: "start", id: c!, attempt: 1, pid: 3, t: 120, ...limited, key: "hooli" },
    { e: "start", id: d!, attempt: 1, pid: 2, t: 600, ...limited, key: "hooli" },
    { e: "ok", id: a!, attempt: 1, pid: 1, t: 700 },
    { e: "ok", id: b!, attempt: 1, pid: 1, t: 700 },
    { e: "ok", id: d!, attempt: 1, pid: 2, t: 800 },
    // Three starts per second: claimed at 0, 10, 20 and 1000, 1010, 1020 (handlers started up to 300 ms later).
    ...rated.flatMap((id, i) => {
      const claimedAt = (i < 3 ? 0 : 1000) + (i % 3) * 10;
      return [
        { e: "start" as const, id, attempt: 1, pid: 1, t: claimedAt + 300, queue: "soak-rated", claimedAt },
        { e: "ok" as const, id, attempt: 1, pid: 1, t: claimedAt + 320 },
      ];
    }),
    // Claimed before the pause committed, started after it.
    { e: "start", id: paused, attempt: 1, pid: 1, t: 2100, queue: "soak-paused", claimedAt: 1990 },
    { e: "ok", id: paused, attempt: 1, pid: 1, t: 2200 },
  );
  const findings = await checkSoak({ prisma }, observations({ killedWorkers: new Map([[3, 500]]), pauses: [{ from: 2000, to: 3000 }] }), { ...NONE, limitedStarts: 4 });
  expect(findings.violations).toEqual([]);
  expect(findings.summary).toContainEqual(["limited queue: starts, most at once (limit)", "4, 3 (3; 1 per account)"]);
  expect(findings.summary).toContainEqual(["rate-limited queue: starts, most in one window (limit)", "6, 3 (3 per 1000 ms)"]);
  expect(findings.summary).toContainEqual(["pauses of a queue; its claims while paused", "1; 0"]);
});

it("reports a queue's and an account's concurrency exceeded, a rate exceeded and a claim while paused", async () => {
  const accounts = await Promise.all(Array.from({ length: 4 }, () => done("soak-account")));
  const rated = await Promise.all(Array.from({ length: 4 }, () => done("soak-rated")));
  const paused = await done("soak-pausable");
  runs(
    ...accounts.map((id, i) => ({ e: "start" as const, id, attempt: 1, pid: 1, t: 100 + i, queue: "soak-limited", key: i < 2 ? "acme" : `other-${i}` })),
    ...accounts.map((id) => ({ e: "ok" as const, id, attempt: 1, pid: 1, t: 500 })),
    ...rated.map((id, i) => ({ e: "start" as const, id, attempt: 1, pid: 1, t: 200 + i * 100, queue: "soak-rated", claimedAt: 100 + i * 100 })),
    ...rated.map((id, i) => ({ e: "ok" as const, id, attempt: 1, pid: 1, t: 210 + i * 100 })),
    { e: "start", id: paused, attempt: 1, pid: 1, t: 2100, queue: "soak-paused", claimedAt: 2050 },
    { e: "ok", id: paused, attempt: 1, pid: 1, t: 2200 },
  );
  const findings = await checkSoak({ prisma }, observations({ pauses: [{ from: 2000, to: 3000 }] }), { ...NONE, limitedStarts: 10 });
  expect(findings.violations).toHaveLength(6);
  expect(findings.violations).toEqual(
    expect.arrayContaining([
      expect.stringMatching(
        /^account acme of soak-limited ran 2 tasks at once, above its limit of 1; the runs: run of task .* attempt 1 on pid 1: claimed undefined, started .*Z, ended .*Z \(ok\); run of /,
      ),
      expect.stringMatching(/^soak-limited ran 4 tasks at once, above its concurrency of 3; the runs: (run of task [^;]*; ){3}run of task [^;]*$/),
      expect.stringMatching(
        /^soak-rated started 4 tasks within 1000 ms, above its rate of 3; the runs: (run of task [^;]*claimed .*Z, started [^;]*; ){3}run of task [^;]*$/,
      ),
      `task ${paused} of soak-paused was claimed at ${new Date(2050).toISOString()}, while its queue was paused (1000 ms from ${new Date(2000).toISOString()})`,
      "coverage: starts of the limited queue 4, fewer than the 10 required",
      "coverage: starts of the rate-limited queue 4, fewer than the 10 required",
    ]),
  );
  expect(findings.suspects).toEqual(expect.arrayContaining([paused, accounts[0]]));
});

it("passes workflows whose runs resume after a sleep with the same attempt, with their events and children as sent", async () => {
  const own = await workflow({ event: "own-token", waited: true, children: 2 }, 2);
  load.signals.push({ taskId: own, token: "own-token", sameTx: true, committed: true });
  const later = await workflow({ event: "later-token", waited: true, children: 0 }, 0);
  load.signals.push(
    { taskId: later, token: "rolled-back-token", sameTx: false, committed: false },
    { taskId: later, token: "later-token", sameTx: false, committed: true },
  );
  await workflow({ event: null, waited: true, children: 1 }, 1); // timed out
  runs(
    { e: "start", id: own, attempt: 1, pid: 1, t: 100 },
    { e: "suspend", id: own, attempt: 1, pid: 1, t: 150, reason: "WorkflowSuspended: the workflow waits (step 3)" },
    { e: "start", id: own, attempt: 1, pid: 2, t: 400 },
    { e: "ok", id: own, attempt: 1, pid: 2, t: 450 },
  );
  const findings = await checkSoak({ prisma }, observations(), { ...NONE, workflows: 3 });
  expect(findings.violations).toEqual([]);
  expect(findings.summary.find(([what]) => what.startsWith("workflows:"))?.[1]).toBe("3, 3; 1, 1; 1; 1; 3");
});

it("reports a workflow that received a rolled-back event, missed its own, ran a child too many or applied its step twice", async () => {
  const rolledBack = await workflow({ event: "rolled-back-token", waited: true, children: 0 }, 0);
  load.signals.push({ taskId: rolledBack, token: "rolled-back-token", sameTx: false, committed: false });
  const missed = await workflow({ event: null, waited: true, children: 0 }, 0);
  load.signals.push({ taskId: missed, token: "own-token", sameTx: true, committed: true });
  const extraChild = await workflow({ event: null, waited: false, children: 1 }, 2);
  load.committed.set(extraChild, { ...load.committed.get(extraChild)!, children: 1 });
  const twice = await workflow({ event: null, waited: false, children: 0 }, 0);
  await sql.query("INSERT INTO soak_effects (task_id, attempt, pid) VALUES ($1, 2, 2)", [twice]);
  const resumedWithoutSuspend = await workflow({ event: null, waited: false, children: 0 }, 0);
  runs(
    { e: "start", id: resumedWithoutSuspend, attempt: 1, pid: 1, t: 100 },
    { e: "fail", id: resumedWithoutSuspend, attempt: 1, pid: 1, t: 150, reason: "Error: boom" },
    { e: "start", id: resumedWithoutSuspend, attempt: 1, pid: 2, t: 400 },
    { e: "ok", id: resumedWithoutSuspend, attempt: 1, pid: 2, t: 450 },
  );
  const { violations } = await checkSoak({ prisma }, observations(), NONE);
  expect(violations).toEqual(
    expect.arrayContaining([
      expect.stringContaining(`workflow ${rolledBack} received the event rolled-back-token, whose transaction rolled back`),
      expect.stringContaining(`workflow ${missed} did not receive the event sent in its own enqueue's transaction`),
      expect.stringContaining(`workflow ${extraChild} has 2 child rows for 1 planned children`),
      expect.stringContaining(`transactional task ${twice} applied its writes 2 times`),
      expect.stringContaining(`task ${resumedWithoutSuspend} (soak-workflow) ran again (attempt 1, pid 2) after attempt 1 on pid 1: the attempt number did not grow`),
    ]),
  );
});
