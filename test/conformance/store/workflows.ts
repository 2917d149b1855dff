// Durable workflows' store operations: a step recorded once per seq and only by the run that holds the task, read back
// in order; a sleeping or waiting run handed back to the queue due at its step's time (or at once when its event is
// there), its attempt given back; an event kept for a live task and waking it only when it waits for that event; a
// wait consuming the oldest event once, or timing out at its deadline; the prune taking a task's steps and events.

import { expect } from "vitest";
import type { NewStep } from "../../../src/store/steps.js";
import { uuidv7 } from "../../../src/uuid.js";
import { area } from "./area.js";
import { filterFor, type StoreBed } from "./bed.js";

/** A pending task claimed by worker-a: its id and the run's attempt. */
async function running(bed: StoreBed): Promise<{ id: string; attempt: number }> {
  const id = await bed.one();
  const [task] = await bed.claim([id]);
  return { id, attempt: task!.attempts };
}

function step(run: { id: string; attempt: number }, seq: number, fields: Partial<NewStep> = {}): NewStep {
  return { taskId: run.id, attempt: run.attempt, seq, name: `step ${seq}`, kind: "run", resultJson: `{"seq":${seq}}`, ...fields };
}

/** The store's answer, or what it rejected with. */
async function settle<T>(running: Promise<T>): Promise<T | Error> {
  return running.then(
    (value) => value,
    (error: unknown) => error as Error,
  );
}

export const workflowsArea = area("workflows", {
  recordStep: {
    "records a step of the run that holds the task; loadSteps reads it back": async (bed) => {
      const run = await running(bed);
      const before = await bed.store.now();
      expect(await bed.store.recordStep("worker-a", step(run, 1, { name: "charge", resultJson: '{"chargeId":"c-1"}' }))).toEqual({ written: true });
      const [recorded, ...rest] = await bed.store.loadSteps(run.id);
      expect(rest).toEqual([]);
      expect(recorded).toMatchObject({ seq: 1, name: "charge", kind: "run", attempt: run.attempt, state: "done", resultJson: '{"chargeId":"c-1"}', until: null });
      expect(recorded!.createdAt.getTime()).toBeGreaterThanOrEqual(before.getTime() - 1);
      expect(recorded!.finishedAt?.getTime()).toBe(recorded!.createdAt.getTime());
    },

    "writes nothing for another owner, another run of the task, or a task that is not running": async (bed) => {
      const run = await running(bed);
      expect(await bed.store.recordStep("worker-b", step(run, 1))).toEqual({ written: false });
      expect(await bed.store.recordStep("worker-a", step({ ...run, attempt: run.attempt + 1 }, 1))).toEqual({ written: false });
      const pending = await bed.one();
      expect(await bed.store.recordStep("worker-a", step({ id: pending, attempt: 0 }, 1))).toEqual({ written: false });
      expect(await bed.store.loadSteps(run.id)).toEqual([]);
    },

    "never a second row for a seq: the second record writes nothing and the first stays": async (bed) => {
      const run = await running(bed);
      expect((await bed.store.recordStep("worker-a", step(run, 1, { resultJson: '"first"' }))).written).toBe(true);
      expect(await bed.store.recordStep("worker-a", step(run, 1, { resultJson: '"second"' }))).toEqual({ written: false });
      expect((await bed.store.loadSteps(run.id)).map((row) => row.resultJson)).toEqual(['"first"']);
    },

    "a sleep's wake-up counts from the database's now; a wait is recorded waiting, with its deadline or none": async (bed) => {
      const run = await running(bed);
      const before = await bed.store.now();
      const slept = await bed.store.recordStep("worker-a", step(run, 1, { kind: "sleep", resultJson: null, until: { inMs: 60_000 } }));
      const after = await bed.store.now();
      expect(slept.written).toBe(true);
      expect(slept.untilInMs).toBeGreaterThan(60_000 - (after.getTime() - before.getTime()) - 5);
      expect(slept.untilInMs).toBeLessThanOrEqual(60_000);
      const at = new Date(after.getTime() + 3_600_000);
      expect((await bed.store.recordStep("worker-a", step(run, 2, { kind: "wait", resultJson: null, until: { at } }))).written).toBe(true);
      expect((await bed.store.recordStep("worker-a", step(run, 3, { kind: "wait", resultJson: null }))).untilInMs).toBeUndefined();
      const [sleep, wait, open] = await bed.store.loadSteps(run.id);
      expect(sleep!.until!.getTime()).toBeGreaterThanOrEqual(before.getTime() + 60_000 - 1);
      expect(sleep!.until!.getTime()).toBeLessThanOrEqual(after.getTime() + 60_000 + 1);
      expect(sleep).toMatchObject({ kind: "sleep", state: "done", resultJson: null });
      expect(wait).toMatchObject({ kind: "wait", state: "waiting", resultJson: null, finishedAt: null, until: at });
      expect(open).toMatchObject({ kind: "wait", state: "waiting", until: null });
    },

    "in a transaction, the record rolls back with it": async (bed) => {
      const run = await running(bed);
      const rollback = new Error("roll back");
      await expect(
        bed.store.transaction(async (tx) => {
          expect((await tx.recordStep("worker-a", step(run, 1))).written).toBe(true);
          throw rollback;
        }),
      ).rejects.toBe(rollback);
      expect(await bed.store.loadSteps(run.id)).toEqual([]);
    },
  },

  loadSteps: {
    "a task without steps has none; steps come back in seq order whatever the order written": async (bed) => {
      expect(await bed.store.loadSteps(uuidv7())).toEqual([]);
      const run = await running(bed);
      for (const seq of [3, 1, 2]) expect((await bed.store.recordStep("worker-a", step(run, seq))).written).toBe(true);
      expect((await bed.store.loadSteps(run.id)).map((row) => [row.seq, row.name])).toEqual([
        [1, "step 1"],
        [2, "step 2"],
        [3, "step 3"],
      ]);
    },
  },

  suspend: {
    "hands the task back pending, due at its step's wake-up, its attempt given back and its lease cleared": async (bed) => {
      const run = await running(bed);
      await bed.store.recordStep("worker-a", step(run, 1, { kind: "sleep", resultJson: null, until: { inMs: 60_000 } }));
      const suspended = await bed.store.suspend("worker-a", { id: run.id, attempt: run.attempt, seq: 1 });
      expect(suspended).toMatchObject({ id: run.id, queue: "default" });
      expect(suspended!.dueInMs).toBeGreaterThan(50_000);
      expect(suspended!.dueInMs).toBeLessThanOrEqual(60_000);
      const [sleep] = await bed.store.loadSteps(run.id);
      const task = await bed.task(run.id);
      expect(task).toMatchObject({ status: "pending", attempts: run.attempt - 1, leaseOwner: null, leaseExpiresAt: null });
      // The step's wake-up, to the millisecond (each read rounds the stored microseconds its own way).
      expect(Math.abs(task.runAt.getTime() - sleep!.until!.getTime())).toBeLessThanOrEqual(1);
      // Claimed again when due, the next run has the same attempt number.
      expect(await bed.store.claimDue(10, filterFor("worker-a"))).toEqual([]);
    },

    "another owner's or another run's suspension writes nothing": async (bed) => {
      const run = await running(bed);
      await bed.store.recordStep("worker-a", step(run, 1, { kind: "sleep", resultJson: null, until: { inMs: 60_000 } }));
      expect(await bed.store.suspend("worker-b", { id: run.id, attempt: run.attempt, seq: 1 })).toBeUndefined();
      expect(await bed.store.suspend("worker-a", { id: run.id, attempt: run.attempt + 1, seq: 1 })).toBeUndefined();
      expect((await bed.task(run.id)).status).toBe("running");
    },

    "a wait without a deadline is due only by its event; a wait whose event is already there is due at once": async (bed) => {
      const run = await running(bed);
      await bed.store.recordStep("worker-a", step(run, 1, { kind: "wait", resultJson: null }));
      expect(await bed.store.suspend("worker-a", { id: run.id, attempt: run.attempt, seq: 1, event: "shipped" })).toMatchObject({ dueInMs: null });
      const other = await running(bed);
      await bed.store.recordStep("worker-a", step(other, 1, { kind: "wait", resultJson: null, until: { inMs: 60_000 } }));
      expect(await bed.store.sendEvent(other.id, "shipped", '{"n":1}')).toEqual({ accepted: true });
      expect(await bed.store.suspend("worker-a", { id: other.id, attempt: other.attempt, seq: 1, event: "shipped" })).toMatchObject({ dueInMs: 0 });
      const now = await bed.store.now();
      expect((await bed.task(other.id)).runAt.getTime()).toBeLessThanOrEqual(now.getTime());
    },
  },

  sendEvent: {
    "a missing or finished task does not accept the event, and nothing is kept": async (bed) => {
      expect(await bed.store.sendEvent(uuidv7(), "shipped", "null")).toEqual({ accepted: false });
      const [done, dead] = await bed.insert([{}, {}]);
      await bed.succeed([done!]);
      await bed.kill([dead!]);
      expect(await bed.store.sendEvent(done!, "shipped", "null")).toEqual({ accepted: false });
      expect(await bed.store.sendEvent(dead!, "shipped", "null")).toEqual({ accepted: false });
    },

    "a pending or running task that does not wait for it keeps the event and stays as it was": async (bed) => {
      const pending = await bed.one({ runAt: new Date(Date.now() + 3_600_000) });
      const before = await bed.task(pending);
      expect(await bed.store.sendEvent(pending, "shipped", "1")).toEqual({ accepted: true });
      expect((await bed.task(pending)).runAt).toEqual(before.runAt);
      const run = await running(bed);
      expect(await bed.store.sendEvent(run.id, "shipped", "2")).toEqual({ accepted: true });
      expect((await bed.task(run.id)).status).toBe("running");
    },

    "a task suspended in a wait for this event is woken, due now; for another event it is not": async (bed) => {
      const run = await running(bed);
      await bed.store.recordStep("worker-a", step(run, 1, { kind: "wait", resultJson: null, until: { inMs: 3_600_000 } }));
      await bed.store.suspend("worker-a", { id: run.id, attempt: run.attempt, seq: 1, event: "shipped" });
      expect(await bed.store.sendEvent(run.id, "cancelled", "null")).toEqual({ accepted: true });
      const now = await bed.store.now();
      expect((await bed.task(run.id)).runAt.getTime()).toBeGreaterThan(now.getTime() + 3_000_000);
      expect(await bed.store.sendEvent(run.id, "shipped", '{"tracking":"t-1"}')).toEqual({ accepted: true, woken: { id: run.id, queue: "default" } });
      expect((await bed.task(run.id)).runAt.getTime()).toBeLessThanOrEqual((await bed.store.now()).getTime());
      // Woken once: a second event of the name finds it no longer waiting (it is due already).
      expect(await bed.store.sendEvent(run.id, "shipped", "null")).toEqual({ accepted: true });
    },

    "sent in a transaction that rolls back, nothing is kept and nothing woken": async (bed) => {
      const run = await running(bed);
      await bed.store.recordStep("worker-a", step(run, 1, { kind: "wait", resultJson: null, until: { inMs: 3_600_000 } }));
      await bed.store.suspend("worker-a", { id: run.id, attempt: run.attempt, seq: 1, event: "shipped" });
      const rollback = new Error("roll back");
      await expect(
        bed.store.transaction(async (tx) => {
          expect((await tx.sendEvent(run.id, "shipped", "null")).woken).toBeDefined();
          throw rollback;
        }),
      ).rejects.toBe(rollback);
      expect((await bed.task(run.id)).runAt.getTime()).toBeGreaterThan((await bed.store.now()).getTime() + 3_000_000);
      const [again] = await bed.claim([run.id]).catch(() => [undefined]);
      expect(again, "not due: the rolled-back event woke nothing").toBeUndefined();
    },
  },

  receiveEvent: {
    "consumes the oldest event of the name once and records its payload as the wait's result": async (bed) => {
      const run = await running(bed);
      for (const payload of ['"a"', '"b"']) await bed.store.sendEvent(run.id, "shipped", payload);
      await bed.store.sendEvent(run.id, "other", '"x"');
      for (const seq of [1, 2, 3]) await bed.store.recordStep("worker-a", step(run, seq, { kind: "wait", resultJson: null, until: { inMs: 60_000 } }));
      expect(await bed.store.receiveEvent("worker-a", run.id, run.attempt, 1, "shipped")).toEqual({ kind: "received", payloadJson: '"a"' });
      expect(await bed.store.receiveEvent("worker-a", run.id, run.attempt, 2, "shipped")).toEqual({ kind: "received", payloadJson: '"b"' });
      const third = await bed.store.receiveEvent("worker-a", run.id, run.attempt, 3, "shipped");
      expect(third.kind).toBe("waiting");
      expect((third as { dueInMs: number }).dueInMs).toBeGreaterThan(50_000);
      // An ended wait is not ended again.
      expect(await bed.store.receiveEvent("worker-a", run.id, run.attempt, 1, "shipped")).toEqual({ kind: "lost" });
      const steps = await bed.store.loadSteps(run.id);
      expect(steps.map((row) => [row.state, row.resultJson])).toEqual([
        ["done", '"a"'],
        ["done", '"b"'],
        ["waiting", null],
      ]);
      expect(steps[0]!.finishedAt).toBeInstanceOf(Date);
    },

    "past its deadline with no event, the wait is recorded timed out; without a deadline it waits": async (bed) => {
      const run = await running(bed);
      await bed.store.recordStep("worker-a", step(run, 1, { kind: "wait", resultJson: null, until: { inMs: 1 } }));
      await bed.store.recordStep("worker-a", step(run, 2, { kind: "wait", resultJson: null }));
      const [wait] = await bed.store.loadSteps(run.id);
      await bed.untilPast(wait!.until!);
      expect(await bed.store.receiveEvent("worker-a", run.id, run.attempt, 1, "shipped")).toEqual({ kind: "timed-out" });
      expect(await bed.store.receiveEvent("worker-a", run.id, run.attempt, 2, "shipped")).toEqual({ kind: "waiting", dueInMs: null });
      expect((await bed.store.loadSteps(run.id)).map((row) => [row.state, row.resultJson])).toEqual([
        ["done", null],
        ["waiting", null],
      ]);
    },

    "another owner's or another run's receipt is lost and consumes nothing": async (bed) => {
      const run = await running(bed);
      await bed.store.sendEvent(run.id, "shipped", '"a"');
      await bed.store.recordStep("worker-a", step(run, 1, { kind: "wait", resultJson: null }));
      expect(await bed.store.receiveEvent("worker-b", run.id, run.attempt, 1, "shipped")).toEqual({ kind: "lost" });
      expect(await bed.store.receiveEvent("worker-a", run.id, run.attempt + 1, 1, "shipped")).toEqual({ kind: "lost" });
      expect(await bed.store.receiveEvent("worker-a", run.id, run.attempt, 1, "shipped")).toEqual({ kind: "received", payloadJson: '"a"' });
    },
  },

  prune: {
    "deletes a pruned task's steps and events, and keeps those of the tasks it keeps": async (bed) => {
      const done = await running(bed);
      const live = await running(bed);
      for (const run of [done, live]) {
        await bed.store.recordStep("worker-a", step(run, 1));
        await bed.store.sendEvent(run.id, "later", "null");
      }
      expect(await bed.store.complete("worker-a", [{ id: done.id, resultJson: "null" }])).toEqual([done.id]);
      await bed.untilPast(new Date((await bed.task(done.id)).finishedAt!.getTime() + 5));
      expect(await bed.store.prune({ retentionMs: 0, limit: 10 })).toEqual([done.id]);
      expect(await bed.store.loadSteps(done.id)).toEqual([]);
      expect(await bed.store.loadSteps(live.id)).toHaveLength(1);
      // The pruned task's event went with it: a task by that id would find none (the live one's is still there).
      await bed.store.recordStep("worker-a", step(live, 2, { kind: "wait", resultJson: null }));
      expect(await bed.store.receiveEvent("worker-a", live.id, live.attempt, 2, "later")).toEqual({ kind: "received", payloadJson: "null" });
    },
  },

  linkChildren: {
    "makes tasks children of a workflow once; a claim reads the parent; in a transaction it rolls back with it": async (bed) => {
      const parent = await running(bed);
      const [a, b, c] = await bed.insert([{}, {}, {}]);
      expect(await bed.store.linkChildren(parent.id, [a!, b!])).toBe(2);
      const other = await bed.one();
      expect(await bed.store.linkChildren(other, [a!, c!]), "a is another's child already").toBe(1);
      expect((await bed.store.childStates(parent.id)).map((child) => child.id)).toEqual([a, b]);
      const [claimed] = await bed.claim([a!]);
      expect(claimed!.parentId).toBe(parent.id);
      expect((await bed.task(parent.id)).parentId).toBeNull();
      const d = await bed.one();
      const rolledBack = await settle(
        bed.store.transaction(async (tx) => {
          await tx.linkChildren(parent.id, [d]);
          throw new Error("the start of children failed");
        }),
      );
      expect(rolledBack).toBeInstanceOf(Error);
      expect((await bed.task(d)).parentId).toBeNull();
    },
  },

  childStates: {
    "each child's status, a succeeded one's result (JSON text) and a dead one's error, oldest first; none for a task without": async (bed) => {
      const parent = await running(bed);
      const [a, b, c] = await bed.insert([{}, {}, {}]);
      await bed.store.linkChildren(parent.id, [a!, b!, c!]);
      const [ca, cb] = await bed.claim([a!, b!], "child-worker");
      await bed.store.complete("child-worker", [{ id: a!, attempt: ca!.attempts, resultJson: '{"charged":12}' }]);
      await bed.store.fail("child-worker", [{ id: b!, attempt: cb!.attempts, error: "Error: card declined", delayMs: 0, finalReason: "unrecoverable" }]);
      // The result as JSON text (each database spells it its own way: compared parsed).
      const states = (await bed.store.childStates(parent.id)).map(({ resultJson, ...state }) => ({
        ...state,
        result: resultJson === null ? null : JSON.parse(resultJson),
      }));
      expect(states).toEqual([
        { id: a, name: "mail", status: "succeeded", result: { charged: 12 }, lastError: null },
        { id: b, name: "mail", status: "dead", result: null, lastError: expect.stringContaining("card declined") },
        { id: c, name: "mail", status: "pending", result: null, lastError: null },
      ]);
      expect(await bed.store.childStates(c!)).toEqual([]);
    },
  },

  suspendForChildren: {
    "hands the parent back due at the recheck, its attempt given back; a child's end wakes it once": async (bed) => {
      const parent = await running(bed);
      const [a] = await bed.insert([{}]);
      await bed.store.linkChildren(parent.id, [a!]);
      const suspended = await bed.store.suspendForChildren("worker-a", { id: parent.id, attempt: parent.attempt, seq: 2, finished: 0, recheckMs: 60_000 });
      expect(suspended).toEqual({ id: parent.id, queue: "default", dueInMs: 60_000 });
      const now = await bed.store.now();
      const task = await bed.task(parent.id);
      expect(task).toMatchObject({ status: "pending", attempts: parent.attempt - 1, leaseOwner: null });
      expect(task.runAt.getTime()).toBeGreaterThan(now.getTime() + 50_000);
      expect(await bed.store.claimDue(10, filterFor("worker-a"))).toEqual([expect.objectContaining({ id: a })]);
      expect(await bed.store.wakeParent(parent.id)).toEqual({ id: parent.id, queue: "default" });
      expect((await bed.task(parent.id)).runAt.getTime()).toBeLessThanOrEqual((await bed.store.now()).getTime());
      expect(await bed.store.wakeParent(parent.id), "woken already").toBeUndefined();
      expect((await bed.store.claimDue(10, filterFor("worker-a"))).map((claimed) => claimed.id)).toEqual([parent.id]);
    },

    "'changed' when a child ended since the run looked, and nothing written; another owner's or run's: nothing": async (bed) => {
      const parent = await running(bed);
      const [a, b] = await bed.insert([{}, {}]);
      await bed.store.linkChildren(parent.id, [a!, b!]);
      await bed.succeed([a!]);
      const seen = { id: parent.id, attempt: parent.attempt, seq: 1, recheckMs: 60_000 };
      expect(await bed.store.suspendForChildren("worker-a", { ...seen, finished: 0 })).toBe("changed");
      expect((await bed.task(parent.id)).status).toBe("running");
      expect(await bed.store.suspendForChildren("worker-b", { ...seen, finished: 1 })).toBeUndefined();
      expect(await bed.store.suspendForChildren("worker-a", { ...seen, attempt: parent.attempt + 1, finished: 1 })).toBeUndefined();
      expect((await bed.task(parent.id)).status).toBe("running");
      expect(await bed.store.suspendForChildren("worker-a", { ...seen, finished: 1 })).toMatchObject({ id: parent.id, dueInMs: 60_000 });
    },
  },

  wakeParent: {
    "wakes nothing that does not wait for its children: a running task, one waiting for an event, a missing one": async (bed) => {
      const run = await running(bed);
      expect(await bed.store.wakeParent(run.id)).toBeUndefined();
      await bed.store.recordStep("worker-a", step(run, 1, { kind: "wait", resultJson: null }));
      await bed.store.suspend("worker-a", { id: run.id, attempt: run.attempt, seq: 1, event: "shipped" });
      expect(await bed.store.wakeParent(run.id)).toBeUndefined();
      expect((await bed.task(run.id)).runAt.getFullYear()).toBe(9999);
      expect(await bed.store.wakeParent(uuidv7())).toBeUndefined();
    },
  },

  cancelTask: {
    "cancels a pending workflow with its pending children and theirs, the workflow first; a running child runs on": async (bed) => {
      const [parent, a, b, grandchild, other] = await bed.insert([{}, {}, {}, {}, {}]);
      await bed.store.linkChildren(parent!, [a!, b!]);
      await bed.store.linkChildren(a!, [grandchild!]);
      await bed.claim([b!]);
      const cancelled = await bed.store.cancelTask(parent!);
      expect(cancelled[0]).toEqual({ id: parent, queue: "default" });
      expect(cancelled.map((row) => row.id).sort()).toEqual([parent, a, grandchild].sort());
      expect((await bed.task(b!)).status).toBe("running");
      expect((await bed.task(other!)).status).toBe("pending");
      expect(await bed.store.cancelTask(parent!), "not pending any more").toEqual([]);
    },

    "a cancelled child makes its parent that waits for its children due now, with the cancel": async (bed) => {
      const parent = await running(bed);
      const [a, b] = await bed.insert([{}, {}]);
      await bed.store.linkChildren(parent.id, [a!, b!]);
      expect(await bed.store.suspendForChildren("worker-a", { id: parent.id, attempt: parent.attempt, seq: 1, finished: 0, recheckMs: 60_000 })).toMatchObject({
        id: parent.id,
      });
      expect((await bed.store.cancelTask(a!)).map((row) => row.id)).toEqual([a]);
      const now = await bed.store.now();
      const woken = await bed.task(parent.id);
      expect(woken.runAt.getTime()).toBeLessThanOrEqual(now.getTime());
      expect(await bed.store.wakeParent(parent.id), "woken by the cancel").toBeUndefined();
      // A parent that does not wait for its children is left as it is.
      const [lone, child] = await bed.insert([{ delayMs: 3_600_000 }, {}]);
      await bed.store.linkChildren(lone!, [child!]);
      await bed.store.cancelTask(child!);
      expect((await bed.task(lone!)).runAt.getTime()).toBeGreaterThan(now.getTime() + 3_000_000);
    },
  },

  check: {
    "a missing steps table rejects the workflow operations with the missing-table problem naming it and the migration": async (bed) => {
      const run = await running(bed);
      await bed.raw.exec("ALTER TABLE tasks_steps RENAME TO tasks_steps_away");
      try {
        const error = await settle(bed.store.loadSteps(run.id));
        expect(error).toBeInstanceOf(Error);
        const problem = bed.store.classify(error);
        expect(problem).toMatchObject({ kind: "missing-table", lasting: true });
        expect(problem.detail).toContain('"tasks_steps"');
        expect(problem.detail).toContain("20261231000000_workflow_steps");
      } finally {
        await bed.raw.exec("ALTER TABLE tasks_steps_away RENAME TO tasks_steps");
      }
    },
  },
});
