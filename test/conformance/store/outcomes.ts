// The ends of a run and the heartbeat: complete, fail (retry or dead), extendLeases and release. Every one of them is
// guarded by the lease and by the run: only the worker that holds it changes the task, and only the run it names.

import { expect } from "vitest";
import { ERROR_HISTORY_LIMIT } from "../../../src/store/error-history.js";
import { area } from "./area.js";
import { filterFor, type StoreBed } from "./bed.js";

const MISSING = "01930000-0000-7000-8000-0000000000bb";
const failure = (id: string, error = "Error: boom", delayMs = 0, finalReason: string | null = null) => ({ id, error, delayMs, finalReason });

/**
 * Two tasks, each run once by worker-a and failed (attempt 1), then claimed again by worker-a (attempt 2): a write of
 * the first run, sent again after its answer was lost, must not end or touch the second.
 */
async function secondRuns(bed: StoreBed): Promise<string[]> {
  const ids = await bed.insert([{ maxAttempts: 5 }, { maxAttempts: 5 }]);
  await bed.claim(ids, "worker-a");
  await bed.store.fail(
    "worker-a",
    ids.map((id) => ({ ...failure(id), attempt: 1 })),
  );
  const again = await bed.claim(ids, "worker-a");
  expect(again.map((task) => task.attempts)).toEqual([2, 2]);
  return ids;
}

export const outcomesArea = area("outcomes", {
  complete: {
    "marks the task succeeded: its result, finished now by its worker, no lease, no current error; answers the ids it marked": async (bed) => {
      const [id] = await bed.insert();
      await bed.claim([id!], "worker-a");
      const before = await bed.store.now();
      expect(await bed.store.complete("worker-a", [{ id: id!, resultJson: '{"sent":3}' }])).toEqual([id]);
      const after = await bed.store.now();
      const task = await bed.task(id!);
      expect(task).toMatchObject({
        status: "succeeded",
        result: { sent: 3 },
        finishedBy: "worker-a",
        leaseOwner: null,
        leaseExpiresAt: null,
        lastError: null,
        attempts: 1,
      });
      expect(task.finishedAt!.getTime()).toBeGreaterThanOrEqual(before.getTime() - 1);
      expect(task.finishedAt!.getTime()).toBeLessThanOrEqual(after.getTime() + 1);
    },

    "one task without a result stores none": async (bed) => {
      const [id] = await bed.insert();
      await bed.claim([id!], "worker-a");
      expect(await bed.store.complete("worker-a", [{ id: id!, resultJson: "null" }])).toEqual([id]);
      expect(await bed.task(id!)).toMatchObject({ status: "succeeded", result: null, finishedBy: "worker-a", leaseOwner: null });
    },

    "a batch stores each row's own result; JSON null stores no result": async (bed) => {
      const plain = await bed.insert([{}, {}]);
      const mixed = await bed.insert([{}, {}, {}]);
      await bed.claim([...plain, ...mixed], "worker-a");
      expect(
        (
          await bed.store.complete(
            "worker-a",
            plain.map((id) => ({ id, resultJson: "null" })),
          )
        ).sort(),
      ).toEqual([...plain].sort());
      const results = ["null", '"ok"', "[1,2]"];
      expect(
        (
          await bed.store.complete(
            "worker-a",
            mixed.map((id, i) => ({ id, resultJson: results[i]! })),
          )
        ).sort(),
      ).toEqual([...mixed].sort());
      for (const id of [...plain, mixed[0]!]) expect(await bed.task(id)).toMatchObject({ status: "succeeded", result: null });
      expect((await bed.task(mixed[1]!)).result).toBe("ok");
      expect((await bed.task(mixed[2]!)).result).toEqual([1, 2]);
    },

    "leaves a task whose lease another worker holds, alone or in a batch": async (bed) => {
      const [theirs, mine] = await bed.insert([{}, {}]);
      await bed.claim([theirs!], "worker-b");
      await bed.claim([mine!], "worker-a");
      expect(await bed.store.complete("worker-a", [{ id: theirs!, resultJson: "null" }])).toEqual([]);
      expect(await bed.store.complete("worker-a", [{ id: theirs!, resultJson: '"late"' }])).toEqual([]);
      expect(
        await bed.store.complete(
          "worker-a",
          [theirs!, mine!].map((id) => ({ id, resultJson: "1" })),
        ),
      ).toEqual([mine]);
      expect(await bed.task(theirs!)).toMatchObject({ status: "running", leaseOwner: "worker-b", result: null, finishedAt: null });
    },

    "leaves a task that is not running: pending, already succeeded, missing": async (bed) => {
      const [pending, done] = await bed.insert([{}, {}]);
      await bed.claim([done!], "worker-a");
      expect(await bed.store.complete("worker-a", [{ id: done!, resultJson: "1" }])).toEqual([done]);
      expect(await bed.store.complete("worker-a", [{ id: done!, resultJson: "2" }])).toEqual([]);
      expect((await bed.task(done!)).result).toBe(1);
      expect(
        await bed.store.complete("worker-a", [
          { id: pending!, resultJson: "null" },
          { id: MISSING, resultJson: "null" },
        ]),
      ).toEqual([]);
      expect((await bed.task(pending!)).status).toBe("pending");
      expect(await bed.store.complete("worker-a", [])).toEqual([]);
    },

    "a lease that ran out but that nobody took is still its worker's: the late success counts": async (bed) => {
      const [id] = await bed.insert();
      await bed.expired([id!], "slow-worker");
      expect(await bed.store.complete("slow-worker", [{ id: id!, resultJson: "null" }])).toEqual([id]);
      expect(await bed.task(id!)).toMatchObject({ status: "succeeded", finishedBy: "slow-worker" });
    },

    "after failed attempts, success clears the current error and keeps the history": async (bed) => {
      const [id] = await bed.insert();
      await bed.claim([id!], "worker-a");
      await bed.store.fail("worker-a", [failure(id!, "Error: first")]);
      await bed.claim([id!], "worker-b");
      expect(await bed.store.complete("worker-b", [{ id: id!, resultJson: "null" }])).toEqual([id]);
      const task = await bed.task(id!);
      expect(task).toMatchObject({ status: "succeeded", lastError: null, finishedBy: "worker-b", attempts: 2 });
      expect(task.errors.map((entry) => [entry.attempt, entry.error])).toEqual([[1, "Error: first"]]);
    },

    "a success of an earlier run, written again after it was over, leaves the same owner's later run alone, alone or in a batch": async (bed) => {
      const [a, b] = await secondRuns(bed);
      expect(await bed.store.complete("worker-a", [{ id: a!, attempt: 1, resultJson: "null" }])).toEqual([]);
      expect(await bed.store.complete("worker-a", [{ id: a!, attempt: 1, resultJson: '{"late":true}' }])).toEqual([]);
      expect(
        await bed.store.complete("worker-a", [
          { id: a!, attempt: 1, resultJson: "null" },
          { id: b!, attempt: 2, resultJson: "null" },
        ]),
      ).toEqual([b]);
      expect(await bed.task(a!)).toMatchObject({ status: "running", attempts: 2, leaseOwner: "worker-a", result: null });
      expect(await bed.store.complete("worker-a", [{ id: a!, attempt: 2, resultJson: '{"on":"time"}' }])).toEqual([a]);
      expect(await bed.task(a!)).toMatchObject({ status: "succeeded", result: { on: "time" } });
    },
  },

  deleteSucceeded: {
    "a deletion of an earlier run, written again after it was over, leaves the same owner's later run alone, alone or in a batch": async (bed) => {
      const [a, b] = await secondRuns(bed);
      expect(await bed.store.deleteSucceeded("worker-a", [a!], [1])).toEqual([]);
      expect(await bed.store.deleteSucceeded("worker-a", [a!, b!], [1, 2])).toEqual([b]);
      expect(await bed.task(a!)).toMatchObject({ status: "running", attempts: 2, leaseOwner: "worker-a" });
      expect(await bed.store.deleteSucceeded("worker-a", [a!], [2])).toEqual([a]);
      expect(await bed.store.findTask(a!)).toBeUndefined();
    },

    "deletes the task its worker holds and answers the ids it deleted; the row is gone": async (bed) => {
      const ids = await bed.insert([{}, {}, {}]);
      await bed.claim(ids, "worker-a");
      expect((await bed.store.deleteSucceeded("worker-a", ids)).sort()).toEqual([...ids].sort());
      for (const id of ids) expect(await bed.store.findTask(id)).toBeUndefined();
      const [one] = await bed.insert();
      await bed.claim([one!], "worker-a");
      expect(await bed.store.deleteSucceeded("worker-a", [one!])).toEqual([one]);
      expect(await bed.store.findTask(one!)).toBeUndefined();
      expect(await bed.store.deleteSucceeded("worker-a", [])).toEqual([]);
    },

    "leaves a task whose lease another worker holds, a pending one, a finished one and a missing one, alone or in a batch": async (bed) => {
      const [theirs, mine, pending, done] = await bed.insert([{}, {}, {}, {}]);
      await bed.claim([theirs!], "worker-b");
      await bed.claim([mine!], "worker-a");
      await bed.succeed([done!], "worker-a");
      expect(await bed.store.deleteSucceeded("worker-a", [theirs!])).toEqual([]);
      expect(await bed.store.deleteSucceeded("worker-a", [theirs!, pending!, done!, MISSING, mine!])).toEqual([mine]);
      expect(await bed.task(theirs!)).toMatchObject({ status: "running", leaseOwner: "worker-b" });
      expect((await bed.task(pending!)).status).toBe("pending");
      expect((await bed.task(done!)).status).toBe("succeeded");
    },

    "a lease that ran out but that nobody took is still its worker's: the late success deletes it": async (bed) => {
      const [id] = await bed.insert();
      await bed.expired([id!], "slow-worker");
      expect(await bed.store.deleteSucceeded("slow-worker", [id!])).toEqual([id]);
      expect(await bed.store.findTask(id!)).toBeUndefined();
    },

    "the dedupe key of a deleted task is free again: the same key inserts a new task": async (bed) => {
      const [first] = await bed.insertRows([{ key: "once" }]);
      await bed.claim([first!.id!], "worker-a");
      expect(await bed.store.deleteSucceeded("worker-a", [first!.id!])).toEqual([first!.id]);
      const [second] = await bed.insertRows([{ key: "once" }]);
      expect(second).toMatchObject({ created: true, key: "once", status: "pending" });
      expect(second!.id).not.toBe(first!.id);
    },

    "inside a transaction that rolls back, the task stays running under its lease": async (bed) => {
      const [id] = await bed.insert();
      await bed.claim([id!], "worker-a");
      const rollback = new Error("roll back");
      await expect(
        bed.store.transaction(async (tx) => {
          expect(await tx.deleteSucceeded("worker-a", [id!])).toEqual([id]);
          throw rollback;
        }),
      ).rejects.toBe(rollback);
      expect(await bed.task(id!)).toMatchObject({ status: "running", leaseOwner: "worker-a" });
    },
  },

  fail: {
    "with attempts left: pending again after the delay (database clock), the error recorded, no lease, not published": async (bed) => {
      const [id] = await bed.insert([{ maxAttempts: 3 }], true);
      await bed.claim([id!], "worker-a");
      const before = await bed.store.now();
      const [failed] = await bed.store.fail("worker-a", [failure(id!, "Error: try again", 60_000)]);
      const after = await bed.store.now();
      expect(failed).toEqual({ id, name: "mail", queue: "default", status: "pending", attempts: 1, lastError: "Error: try again", reason: null });
      const task = await bed.task(id!);
      expect(task).toMatchObject({
        status: "pending",
        attempts: 1,
        lastError: "Error: try again",
        finishedBy: "worker-a",
        leaseOwner: null,
        leaseExpiresAt: null,
        publishedAt: null,
        finishedAt: null,
      });
      expect(task.runAt.getTime()).toBeGreaterThanOrEqual(before.getTime() + 60_000 - 1);
      expect(task.runAt.getTime()).toBeLessThanOrEqual(after.getTime() + 60_000 + 1);
      expect(task.errors).toHaveLength(1);
      expect(task.errors[0]).toMatchObject({ attempt: 1, error: "Error: try again" });
      expect(task.errors[0]!.at.getTime()).toBeGreaterThanOrEqual(before.getTime() - 1);
      expect(task.errors[0]!.at.getTime()).toBeLessThanOrEqual(after.getTime() + 1);
      const [claim] = await bed.store.claimByIds([id!], filterFor("worker-b"));
      expect(claim).toMatchObject({ claimed: null, reason: "not-due" });
    },

    "a failure of an earlier attempt, written again after its run was over, leaves the same owner's later run alone": async (bed) => {
      const [id] = await bed.insert([{ maxAttempts: 5 }]);
      await bed.claim([id!], "worker-a");
      expect(await bed.store.fail("worker-a", [{ ...failure(id!, "Error: first"), attempt: 1 }])).toMatchObject([{ id, status: "pending", attempts: 1 }]);
      expect((await bed.claim([id!], "worker-a"))[0]).toMatchObject({ attempts: 2, status: "running" });
      // The first write again (its answer was lost, say): the row is the second run now, which it must not end.
      expect(await bed.store.fail("worker-a", [{ ...failure(id!, "Error: first"), attempt: 1 }])).toEqual([]);
      expect(await bed.task(id!)).toMatchObject({ status: "running", attempts: 2, leaseOwner: "worker-a", lastError: "Error: first" });
      expect(await bed.store.fail("worker-a", [{ ...failure(id!, "Error: second"), attempt: 2 }])).toMatchObject([{ id, status: "pending", attempts: 2 }]);
    },

    "a delay of 0 makes the task due again at once": async (bed) => {
      const [id] = await bed.insert();
      await bed.claim([id!], "worker-a");
      await bed.store.fail("worker-a", [failure(id!)]);
      expect((await bed.claim([id!], "worker-b"))[0]).toMatchObject({ attempts: 2, status: "running" });
    },

    "the last attempt goes dead with reason max-attempts, finished now": async (bed) => {
      const [id] = await bed.insert([{ maxAttempts: 2 }]);
      await bed.claim([id!], "worker-a");
      expect((await bed.store.fail("worker-a", [failure(id!, "Error: one")]))[0]).toMatchObject({ status: "pending", reason: null });
      await bed.claim([id!], "worker-a");
      const [failed] = await bed.store.fail("worker-a", [failure(id!, "Error: two")]);
      expect(failed).toEqual({ id, name: "mail", queue: "default", status: "dead", attempts: 2, lastError: "Error: two", reason: "max-attempts" });
      const task = await bed.task(id!);
      expect(task).toMatchObject({ status: "dead", attempts: 2, lastError: "Error: two", finishedBy: "worker-a", leaseOwner: null });
      expect(task.finishedAt).toBeInstanceOf(Date);
      expect(task.errors.map((entry) => entry.attempt)).toEqual([1, 2]);
    },

    "a final reason makes the task dead whatever attempts remain, with that reason": async (bed) => {
      const [id] = await bed.insert([{ maxAttempts: 10 }]);
      await bed.claim([id!], "worker-a");
      const [failed] = await bed.store.fail("worker-a", [failure(id!, "Error: bad payload", 5_000, "invalid-payload")]);
      expect(failed).toMatchObject({ status: "dead", attempts: 1, reason: "invalid-payload" });
      expect(await bed.task(id!)).toMatchObject({ status: "dead", finishedBy: "worker-a" });
    },

    "a batch decides each task on its own": async (bed) => {
      const [retry, last, final] = await bed.insert([{ maxAttempts: 5 }, { maxAttempts: 1 }, { maxAttempts: 5 }]);
      await bed.claim([retry!, last!, final!], "worker-a");
      const failed = await bed.store.fail("worker-a", [failure(retry!, "Error: r"), failure(last!, "Error: l"), failure(final!, "Error: f", 0, "unrecoverable")]);
      const byId = new Map(failed.map((task) => [task.id, task]));
      expect(failed).toHaveLength(3);
      expect(byId.get(retry!)).toMatchObject({ status: "pending", reason: null, lastError: "Error: r" });
      expect(byId.get(last!)).toMatchObject({ status: "dead", reason: "max-attempts", lastError: "Error: l" });
      expect(byId.get(final!)).toMatchObject({ status: "dead", reason: "unrecoverable", lastError: "Error: f" });
    },

    "leaves a task whose lease another worker holds, and one that is not running": async (bed) => {
      const [theirs, pending] = await bed.insert([{}, {}]);
      await bed.claim([theirs!], "worker-b");
      expect(await bed.store.fail("worker-a", [failure(theirs!), failure(pending!), failure(MISSING)])).toEqual([]);
      expect(await bed.task(theirs!)).toMatchObject({ status: "running", leaseOwner: "worker-b", lastError: null, errors: [] });
      expect(await bed.task(pending!)).toMatchObject({ status: "pending", attempts: 0, lastError: null });
      expect(await bed.store.fail("worker-a", [])).toEqual([]);
    },

    [`the history keeps the last ${ERROR_HISTORY_LIMIT} failures, oldest first`]: async (bed) => {
      const [id] = await bed.insert([{ maxAttempts: 50 }]);
      for (let attempt = 1; attempt <= ERROR_HISTORY_LIMIT + 2; attempt++) {
        await bed.claim([id!], "worker-a");
        await bed.store.fail("worker-a", [failure(id!, `Error: attempt ${attempt}`)]);
      }
      const task = await bed.task(id!);
      expect(task.errors.map((entry) => entry.attempt)).toEqual(Array.from({ length: ERROR_HISTORY_LIMIT }, (_, i) => i + 3));
      expect(task.errors.at(-1)!.error).toBe(`Error: attempt ${ERROR_HISTORY_LIMIT + 2}`);
      expect(task.lastError).toBe(`Error: attempt ${ERROR_HISTORY_LIMIT + 2}`);
    },
  },

  extendLeases: {
    "a heartbeat of an earlier run leaves the same owner's later run's lease as it is, and says lost; alone or in a batch": async (bed) => {
      const [a, b] = await secondRuns(bed);
      await bed.store.extendLeases("worker-a", [a!, b!], 60_000, [2, 2]);
      const before = (await bed.task(a!)).leaseExpiresAt!.getTime();
      expect(await bed.store.extendLeases("worker-a", [a!], 1000, [1])).toEqual([{ id: a, extended: false, lost: true }]);
      expect(await bed.store.extendLeases("worker-a", [a!, b!], 1000, [1, 2])).toEqual([
        { id: a, extended: false, lost: true },
        { id: b, extended: true, lost: false },
      ]);
      expect((await bed.task(a!)).leaseExpiresAt!.getTime()).toBe(before);
      expect(await bed.store.extendLeases("worker-a", [a!], 1000, [2])).toEqual([{ id: a, extended: true, lost: false }]);
    },

    "extends the owner's lease to leaseMs from now (database clock)": async (bed) => {
      const [id] = await bed.insert();
      await bed.claim([id!], "worker-a", 5_000);
      const before = await bed.store.now();
      expect(await bed.store.extendLeases("worker-a", [id!], 120_000)).toEqual([{ id, extended: true, lost: false }]);
      const after = await bed.store.now();
      const lease = (await bed.task(id!)).leaseExpiresAt!.getTime();
      expect(lease).toBeGreaterThanOrEqual(before.getTime() + 120_000 - 1);
      expect(lease).toBeLessThanOrEqual(after.getTime() + 120_000 + 1);
    },

    "says lost where another worker holds the lease, the task is no longer running, or is gone": async (bed) => {
      const [mine, theirs, done, released] = await bed.insert([{}, {}, {}, {}]);
      await bed.claim([mine!, done!, released!], "worker-a");
      await bed.claim([theirs!], "worker-b");
      await bed.store.complete("worker-a", [{ id: done!, resultJson: "null" }]);
      await bed.store.release("worker-a", [released!]);
      const theirLease = (await bed.task(theirs!)).leaseExpiresAt;
      const states = await bed.store.extendLeases("worker-a", [mine!, theirs!, done!, released!, MISSING], 60_000);
      expect(new Map(states.map((state) => [state.id, state]))).toEqual(
        new Map([
          [mine, { id: mine, extended: true, lost: false }],
          [theirs, { id: theirs, extended: false, lost: true }],
          [done, { id: done, extended: false, lost: true }],
          [released, { id: released, extended: false, lost: true }],
          [MISSING, { id: MISSING, extended: false, lost: true }],
        ]),
      );
      expect((await bed.task(theirs!)).leaseExpiresAt).toEqual(theirLease);
    },

    "a lease that ran out but that nobody took is extended for its worker": async (bed) => {
      const [id] = await bed.insert();
      await bed.expired([id!], "slow-worker");
      expect(await bed.store.extendLeases("slow-worker", [id!], 60_000)).toEqual([{ id, extended: true, lost: false }]);
      expect(await bed.store.findExpiredLeases(10)).toEqual([]);
    },

    "a row another transaction is writing is neither extended nor lost: the next beat tries again (one write lock: extended after the wait)": async (bed) => {
      const [id] = await bed.insert();
      await bed.claim([id!], "worker-a", 5_000);
      const states = await bed.duringWrite(id!, (store) => store.extendLeases("worker-a", [id!], 90_000));
      if (bed.dialect.writeLock === "row") expect(states).toEqual([{ id, extended: false, lost: false }]);
      else expect(states).toEqual([{ id, extended: true, lost: false }]);
    },

    "an empty list answers nothing": async (bed) => {
      expect(await bed.store.extendLeases("worker-a", [], 60_000)).toEqual([]);
    },
  },

  release: {
    "a release by an earlier run leaves the same owner's later run running, alone or in a batch": async (bed) => {
      const [a, b] = await secondRuns(bed);
      expect(await bed.store.release("worker-a", [a!], [1])).toEqual([]);
      expect(await bed.store.release("worker-a", [a!, b!], [1, 2])).toEqual([{ id: b, queue: "default" }]);
      expect(await bed.task(a!)).toMatchObject({ status: "running", attempts: 2, leaseOwner: "worker-a" });
      expect(await bed.task(b!)).toMatchObject({ status: "pending", attempts: 1, leaseOwner: null });
    },

    "gives the task back: pending, due, the run not counted, no lease, not published; answers id and queue": async (bed) => {
      const [id] = await bed.insert([{ queue: "other" }], true);
      await bed.claim([id!], "worker-a");
      expect(await bed.store.release("worker-a", [id!])).toEqual([{ id, queue: "other" }]);
      expect(await bed.task(id!)).toMatchObject({ status: "pending", attempts: 0, leaseOwner: null, leaseExpiresAt: null, publishedAt: null });
      expect((await bed.claim([id!], "worker-b"))[0]!.attempts).toBe(1);
    },

    "leaves tasks another worker holds, and tasks that are not running": async (bed) => {
      const [theirs, pending, done] = await bed.insert([{}, {}, {}]);
      await bed.claim([theirs!], "worker-b");
      await bed.succeed([done!], "worker-a");
      expect(await bed.store.release("worker-a", [theirs!, pending!, done!, MISSING])).toEqual([]);
      expect(await bed.task(theirs!)).toMatchObject({ status: "running", leaseOwner: "worker-b", attempts: 1 });
      expect((await bed.task(done!)).status).toBe("succeeded");
      expect(await bed.store.release("worker-a", [])).toEqual([]);
    },
  },
});
