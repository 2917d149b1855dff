// Upgrading the schema with tasks in flight, on every dialect, once per schema change: the shipped migrations before
// the change as "older", the change's migration and every one after it as "newer". Every task that was pending,
// delayed or running finishes exactly once under today's worker, dead and succeeded tasks stay as they were, and the
// migration loses none of them. Each change then checks what it added: finished_by and the error history on rows
// written before them; the schedule tables, serving recurring tasks beside the tasks already there; the queue controls;
// the trace context.

import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { Store } from "../../src/index.js";
import { uuidv7 } from "../../src/uuid.js";
import { prepared } from "../conformance/store/bed.js";
import { upgradeWithTasksInFlight, type Migration, type UpgradeResult } from "./upgrade-harness.js";
import { mysqlUpgrade, postgresUpgrade, sqliteUpgrade } from "./upgrade-databases.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const runLogs: string[] = [];

afterAll(() => {
  for (const dir of runLogs) rmSync(dir, { recursive: true, force: true });
});

function migrationsIn(dir: string): Migration[] {
  return readdirSync(dir)
    .filter((name) => /^\d{14}_/.test(name))
    .sort()
    .map((name) => ({ name, dir }));
}

/** What every upgrade keeps: no task lost by the migration, each one that can finish finished once. */
function expectNothingLost(result: UpgradeResult): void {
  expect(result.afterMigration).toEqual({ pending: "pending", delayed: "pending", running: "running", orphaned: "running", dead: "dead", succeeded: "succeeded" });
  const statuses = Object.fromEntries(Object.entries(result.final).map(([state, task]) => [state, task?.status]));
  expect(statuses).toEqual({ pending: "succeeded", delayed: "succeeded", running: "succeeded", orphaned: "succeeded", dead: "dead", succeeded: "succeeded" });
  expect(result.runs).toEqual({ pending: 1, delayed: 1, running: 1, orphaned: 1, dead: 0, succeeded: 0 });
}

/** The schedule tables serve through today's store: a schedule synced, a slot fired with its task, the slot refused again. */
async function schedulesServe(store: Store): Promise<void> {
  const [state] = await store.syncSchedules([{ schedule: "run#nightly", taskName: "run", cron: "0 3 * * *", timeZone: "UTC" }]);
  expect(state?.schedule).toBe("run#nightly");
  const slot = new Date(state!.lastSlot.getTime() + 60_000);
  const fired = await store.transaction(async (tx) => {
    const won = await tx.claimScheduleSlot("run#nightly", slot, uuidv7());
    if (won) await tx.advanceSchedule("run#nightly", slot);
    return won;
  });
  expect(fired).toBe(true);
  expect(await store.claimScheduleSlot("run#nightly", slot, uuidv7())).toBe(false);
  expect((await store.listSchedules()).map((row) => [row.schedule, row.lastSlot.getTime()])).toEqual([["run#nightly", slot.getTime()]]);
}

/**
 * The queue controls serve through today's store beside the tasks already there: a queue paused refuses its task, a
 * resume gives it back, a limited claim counts, and a task with a concurrency key is written and held to its key.
 */
async function queueControlsServe(store: Store): Promise<void> {
  await store.syncQueues([{ queue: "upgraded", concurrency: 1, rateLimit: { starts: 10, perMs: 60_000 } }]);
  const row = (key: string | null) => ({
    id: uuidv7(),
    name: "run",
    queue: "upgraded",
    json: "{}",
    priority: 0,
    delayMs: 0,
    runAt: null,
    maxAttempts: 3,
    key: null,
    concurrencyKey: key,
  });
  const rows = [row("acct-1"), row("acct-1"), row(null)];
  const insert = store.insertTasks(rows, false);
  await insert.read(await insert.request);
  expect(await store.pauseQueue("upgraded")).toBe(true);
  const filter = { owner: "upgraded-worker", leaseMs: 30_000, names: ["run"], queues: ["upgraded"], limits: { upgraded: { concurrency: 2, tasks: { run: 1 } } } };
  expect(await store.claimDue(10, filter)).toEqual([]);
  expect((await store.resumeQueue("upgraded", 10)).resumed).toBe(true);
  const claimed = await store.claimDue(10, filter);
  expect(claimed.map((task) => task.id).sort()).toEqual([rows[0]!.id, rows[2]!.id].sort());
  expect((await store.listQueues()).map((queue) => [queue.queue, queue.concurrency, queue.pausedAt])).toEqual([["upgraded", 1, null]]);
}

/**
 * The trace context serves through today's store beside the tasks already there: a traced task is written with it and
 * a claim reads it back, an untraced one beside it has none.
 */
async function traceContextServes(store: Store): Promise<void> {
  const traceContext = JSON.stringify({ traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" });
  const row = (traced: boolean) => ({
    id: uuidv7(),
    name: "run",
    queue: "traced",
    json: "{}",
    priority: 0,
    delayMs: 0,
    runAt: null,
    maxAttempts: 3,
    key: null,
    ...(traced && { traceContext }),
  });
  const rows = [row(true), row(false)];
  const insert = store.insertTasks(rows, false);
  await insert.read(await insert.request);
  const claimed = await store.claimDue(10, { owner: "upgraded-worker", leaseMs: 30_000, names: ["run"], queues: ["traced"] });
  expect(Object.fromEntries(claimed.map((task) => [task.id, task.traceContext]))).toEqual({ [rows[0]!.id]: traceContext, [rows[1]!.id]: null });
}

/**
 * Workflows serve through today's store beside the tasks already there: a running task records a step and a wait,
 * suspends, an event wakes it, and its next run receives the event.
 */
async function workflowsServe(store: Store): Promise<void> {
  const row = { ...prepared({ name: "run", queue: "flows" }) };
  const insert = store.insertTasks([row], false);
  await insert.read(await insert.request);
  const filter = { owner: "upgraded-worker", leaseMs: 30_000, names: ["run"], queues: ["flows"] };
  const [task] = await store.claimDue(10, filter);
  expect(task?.id).toBe(row.id);
  const step = { taskId: row.id, attempt: task!.attempts, name: "charge", kind: "run" as const, resultJson: '"c-1"' };
  expect(await store.recordStep("upgraded-worker", { ...step, seq: 1 })).toEqual({ written: true });
  expect((await store.recordStep("upgraded-worker", { ...step, seq: 2, name: "shipped", kind: "wait", resultJson: null })).written).toBe(true);
  expect(await store.suspend("upgraded-worker", { id: row.id, attempt: task!.attempts, seq: 2, event: "shipped" })).toMatchObject({ dueInMs: null });
  expect(await store.sendEvent(row.id, "shipped", '{"tracking":"t"}')).toEqual({ accepted: true, woken: { id: row.id, queue: "flows" } });
  const [again] = await store.claimDue(10, filter);
  expect(again?.id).toBe(row.id);
  expect(await store.receiveEvent("upgraded-worker", row.id, again!.attempts, 2, "shipped")).toEqual({ kind: "received", payloadJson: '{"tracking":"t"}' });
}

/**
 * Children serve through today's store beside the tasks already there: a running workflow links two tasks as its
 * children, waits for them, and the end of the last one wakes it; a task written before the migration has no parent.
 */
async function childrenServe(store: Store): Promise<void> {
  const rows = [prepared({ name: "run", queue: "families" }), prepared({ name: "run", queue: "families" }), prepared({ name: "run", queue: "families" })];
  const insert = store.insertTasks(rows, false);
  await insert.read(await insert.request);
  const [parent, a, b] = rows.map((row) => row.id);
  const filter = { owner: "upgraded-worker", leaseMs: 30_000, names: ["run"], queues: ["families"] };
  const [run] = await store.claimByIds([parent!], filter);
  expect(run?.claimed?.parentId).toBeNull();
  expect(await store.linkChildren(parent!, [a!, b!])).toBe(2);
  const children = await store.claimDue(10, filter);
  expect(children.map((task) => [task.id, task.parentId]).sort()).toEqual(
    [
      [a, parent],
      [b, parent],
    ].sort(),
  );
  const attempt = run!.claimed!.attempts;
  expect(await store.suspendForChildren("upgraded-worker", { id: parent!, attempt, seq: 1, finished: 0, recheckMs: 60_000 })).toMatchObject({ id: parent });
  await store.complete(
    "upgraded-worker",
    children.map((task) => ({ id: task.id, attempt: task.attempts, resultJson: '"done"' })),
  );
  expect(await store.wakeParent(parent!)).toEqual({ id: parent, queue: "families" });
  expect((await store.childStates(parent!)).map((child) => child.status)).toEqual(["succeeded", "succeeded"]);
}

/** Each schema change since the first migration, with what it checks of its own. */
const CHANGES: Array<{ suffix: string; what: string; check(result: UpgradeResult): void; afterUpgrade?: (store: Store) => Promise<void> }> = [
  {
    suffix: "_task_finished_by_errors",
    what: "finished_by and the error history work on rows written before them",
    check(result) {
      expect(result.final.pending?.finishedBy).toMatch(/\S/);
      expect(result.final.orphaned?.errors.map((entry) => entry.error)).toEqual([expect.stringMatching(/^lease expired: worker dead-worker /)]);
      expect(result.final.orphaned?.lastError).toBeNull();
      expect(result.final.dead).toMatchObject({ lastError: "Error: before the upgrade", errors: [], finishedBy: null });
    },
  },
  {
    suffix: "_task_schedules",
    what: "the schedule tables serve recurring tasks beside the tasks already there",
    check(result) {
      expect(result.final.dead).toMatchObject({ lastError: "Error: before the upgrade" });
    },
    afterUpgrade: schedulesServe,
  },
  {
    suffix: "_queue_controls",
    what: "pauses, limits and concurrency keys serve beside the tasks already there",
    check(result) {
      expect(result.final.dead).toMatchObject({ lastError: "Error: before the upgrade" });
    },
    afterUpgrade: queueControlsServe,
  },
  {
    suffix: "_trace_context",
    what: "the tasks written before it run with no trace context, and a traced task written after it keeps its own",
    check(result) {
      for (const task of Object.values(result.final)) expect(task?.traceContext).toBeNull();
      expect(result.final.dead).toMatchObject({ lastError: "Error: before the upgrade" });
    },
    afterUpgrade: traceContextServes,
  },
  {
    suffix: "_queue_tallies",
    what: "the runs that finish after it are tallied for the scaling signal, and the tasks enqueued before it are not arrivals",
    check(result) {
      // pending, delayed, running and orphaned succeed under today's worker, each run timed; they were enqueued before
      // tallying began, so the window (which starts then) holds no arrival.
      const queues = [...new Set(Object.values(result.final).map((task) => task?.queue))];
      expect(result.activity.map(({ queue, arrived, succeeded, timed }) => ({ queue, arrived, succeeded, timed }))).toEqual(
        queues.map((queue) => ({ queue, arrived: 0, succeeded: 4, timed: 4 })),
      );
      expect(result.activity[0]!.runMs).toBeGreaterThanOrEqual(0);
      expect(result.activity[0]!.rateSeconds).toBeLessThan(900);
    },
  },
  {
    suffix: "_workflow_steps",
    what: "the tasks written before it finish with no steps, and a workflow written after it records, waits and is woken by its event",
    check(result) {
      expect(result.final.dead).toMatchObject({ lastError: "Error: before the upgrade" });
    },
    afterUpgrade: workflowsServe,
  },
  {
    suffix: "_workflow_children",
    what: "the tasks written before it have no parent, and a workflow written after it links its children and is woken by their end",
    check(result) {
      for (const task of Object.values(result.final)) expect(task?.parentId).toBeNull();
      expect(result.final.dead).toMatchObject({ lastError: "Error: before the upgrade" });
    },
    afterUpgrade: childrenServe,
  },
];

for (const dialect of [postgresUpgrade, sqliteUpgrade, mysqlUpgrade]) {
  describe(`upgrade on ${dialect.name}`, () => {
    const shipped = migrationsIn(join(root, dialect.migrations));

    it("ships one migration per schema change after the first, each tested below", () => {
      expect(shipped.slice(1).map((migration) => migration.name.replace(/^\d{14}/, ""))).toEqual(CHANGES.map((change) => change.suffix));
    });

    for (const change of CHANGES) {
      it(
        `applies ${change.suffix.slice(1)} over tasks in every state, loses none, and today's worker finishes them once; ${change.what}`,
        { timeout: 60_000 },
        async () => {
          const at = shipped.findIndex((migration) => migration.name.endsWith(change.suffix));
          expect(at).toBeGreaterThan(0);
          const runLog = mkdtempSync(join(tmpdir(), "ptq-upgrade-"));
          runLogs.push(runLog);
          const result = await upgradeWithTasksInFlight(dialect, shipped.slice(0, at), shipped.slice(at), runLog, undefined, change.afterUpgrade);
          expect(result.applied).toEqual(shipped.map((migration) => migration.name));
          expectNothingLost(result);
          change.check(result);
        },
      );
    }
  });
}
