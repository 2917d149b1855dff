// Queue controls: pause and resume, the queue rows, and the claims of limited queues (a queue's concurrency, a task's
// concurrency per key, a rate of starts). The running rows are the slots: what ends a run frees one, a stale owner never.

import { expect } from "vitest";
import type { ClaimLimits, ClaimRefusal } from "../../../src/store/queue-controls.js";
import type { ClaimFilter } from "../../../src/store/task-writes.js";
import type { Store } from "../../../src/index.js";
import { area } from "./area.js";
import { filterFor, untilBlockedOrSettled, type StoreBed } from "./bed.js";

/** A claimer's filter with limits, recording what it was told it was refused. */
function limited(owner: string, limits: ClaimLimits, refusals: ClaimRefusal[] = [], leaseMs = 30_000): ClaimFilter {
  return { ...filterFor(owner, leaseMs), limits, refused: (refusal) => void refusals.push(refusal) };
}

async function running(bed: StoreBed, queue = "default"): Promise<number> {
  const counts = await bed.store.countTasks();
  return counts.filter((row) => row.queue === queue && row.status === "running").reduce((sum, row) => sum + row.count, 0);
}

/**
 * Runs `hold` in a transaction of the store that stays open until `next` (a claim by another connection) is seen
 * waiting for it (or, with one write lock, unable to begin); then `finish` runs in that transaction, which commits.
 * `wentAhead`: `next` had settled before the transaction ended.
 */
async function whileHeld<H, F, N>(
  bed: StoreBed,
  hold: (tx: Store) => Promise<H>,
  next: () => Promise<N>,
  finish: (tx: Store) => Promise<F>,
): Promise<{ held: H; finished: F; next: N; wentAhead: boolean }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let entered!: () => void;
  const inside = new Promise<void>((resolve) => (entered = resolve));
  let held!: H;
  const holder = bed.store
    .transaction(async (tx) => {
      held = await hold(tx);
      entered();
      await released;
      return finish(tx);
    })
    .finally(() => entered());
  await inside;
  let settled = false;
  const waiting = next().finally(() => (settled = true));
  waiting.catch(() => {});
  let wentAhead: boolean;
  try {
    // Row locks: the claim waits for the queue's row. One write lock (SQLite): it cannot begin before.
    if (bed.dialect.writeLock === "row") await untilBlockedOrSettled(bed, () => settled);
    else expect(await bed.raw.writerBlocked(), "the holder holds the write lock").toBe(true);
    wentAhead = settled;
  } finally {
    release();
  }
  const finished = await holder;
  return { held, finished, next: await waiting, wentAhead };
}

/** The filter of a claimer of the queue "default" with `limits`. */
const limitedDefault = (owner: string, limits: ClaimLimits) => ({ ...limited(owner, limits), queues: ["default"] });

/**
 * A first claim by id takes the only slot of `limits` and holds the queue's lock until the second, by another
 * connection, is seen waiting (or, with one write lock, unable to begin); the second must then count the first.
 */
async function claimWhileHeld(bed: StoreBed, limits: ClaimLimits, spec: { concurrencyKey?: string }): Promise<void> {
  const [first, second] = await bed.insert([spec, spec]);
  const { held, next } = await whileHeld(
    bed,
    (tx) => tx.claimByIds([first!], limitedDefault("holder", limits)),
    () => bed.other().claimByIds([second!], limitedDefault("waiter", limits)),
    async () => undefined,
  );
  expect(held[0]).toMatchObject({ id: first, claimed: { id: first } });
  expect(next[0]).toMatchObject({ id: second, claimed: null, reason: "limited" });
  expect((await bed.task(second!)).status).toBe("pending");
}

export const controlsArea = area("controls", {
  pauseQueue: {
    "a paused queue's due tasks stay pending: claimDue takes none, claimByIds says paused; other queues are claimed": async (bed) => {
      const [a, b, other] = await bed.insert([{}, {}, { queue: "other" }]);
      expect(await bed.store.pauseQueue("default")).toBe(true);
      const due = await bed.store.claimDue(10, filterFor("w"));
      expect(due.map((task) => task.id)).toEqual([other]);
      const [result] = await bed.store.claimByIds([a!], filterFor("w"));
      expect(result).toEqual({ id: a, claimed: null, reason: "paused", name: "mail", queue: "default" });
      for (const id of [a!, b!]) expect((await bed.task(id)).status).toBe("pending");
    },

    "a limited queue that is paused claims nothing either, by id or due": async (bed) => {
      const [a] = await bed.insert([{}, {}]);
      await bed.store.pauseQueue("default");
      const refusals: ClaimRefusal[] = [];
      const limits = { default: { concurrency: 10 } };
      expect(await bed.store.claimDue(10, limited("w", limits, refusals))).toEqual([]);
      const [result] = await bed.store.claimByIds([a!], limited("w", limits, refusals));
      expect(result).toMatchObject({ id: a, claimed: null, reason: "paused" });
      expect(refusals).toContainEqual({ queue: "default", reason: "paused" });
    },

    "pausing twice answers false; a running task of a paused queue still completes": async (bed) => {
      const [id] = await bed.insert([{}]);
      await bed.claim([id!], "runner");
      expect(await bed.store.pauseQueue("default")).toBe(true);
      expect(await bed.store.pauseQueue("default")).toBe(false);
      expect(await bed.store.complete("runner", [{ id: id!, resultJson: "null" }])).toEqual([id]);
      expect((await bed.store.listQueues()).map((q) => [q.queue, q.pausedAt instanceof Date])).toEqual([["default", true]]);
    },
  },

  resumeQueue: {
    "resuming makes the tasks claimable again, marks them unpublished, and returns the oldest due ones up to wakeLimit": async (bed) => {
      const ids = await bed.insert([{}, {}, {}, { delayMs: 60_000 }], true);
      await bed.store.pauseQueue("default");
      const { resumed, due } = await bed.store.resumeQueue("default", 2);
      expect(resumed).toBe(true);
      expect(due).toEqual([
        { id: ids[0], queue: "default" },
        { id: ids[1], queue: "default" },
      ]);
      // Past the rows' creation on the database clock (SQLite's counts milliseconds): a grace of 0 then covers them.
      await bed.untilPast(new Date(Math.max(...(await Promise.all(ids.map(async (id) => (await bed.task(id)).createdAt.getTime()))))));
      const unpublished = await bed.store.findUnpublished({ graceMs: 0, limit: 10 });
      expect(unpublished.map((task) => task.id).sort()).toEqual(ids.slice(0, 3).sort());
      expect((await bed.store.claimDue(10, filterFor("w"))).map((task) => task.id).sort()).toEqual(ids.slice(0, 3).sort());
      expect((await bed.store.resumeQueue("default", 10)).resumed).toBe(false);
    },
  },

  syncQueues: {
    "writes each queue's declared limits, keeps its pause; listQueues shows them ordered by queue": async (bed) => {
      await bed.store.pauseQueue("reports");
      await bed.store.syncQueues([
        { queue: "reports", concurrency: 5, rateLimit: { starts: 10, perMs: 1000 } },
        { queue: "emails", concurrency: null, rateLimit: null },
      ]);
      await bed.store.syncQueues([{ queue: "reports", concurrency: 5, rateLimit: { starts: 10, perMs: 1000 } }]);
      const queues = await bed.store.listQueues();
      expect(queues.map(({ queue, concurrency, rateLimit, pausedAt }) => ({ queue, concurrency, rateLimit, paused: pausedAt !== null }))).toEqual([
        { queue: "emails", concurrency: null, rateLimit: null, paused: false },
        { queue: "reports", concurrency: 5, rateLimit: { starts: 10, perMs: 1000 }, paused: true },
      ]);
      for (const row of queues) expect(row.updatedAt).toBeInstanceOf(Date);
    },

    "a queue whose row declares limits is claimed only by claims that count it; lifted, by any claim": async (bed) => {
      const [a, b, c, other] = await bed.insert([{}, {}, {}, { queue: "other" }]);
      await bed.store.syncQueues([{ queue: "default", concurrency: 2, rateLimit: null }]);
      // A claimer that does not know of the limit (no limits in its filter) leaves the queue's tasks pending.
      expect((await bed.store.claimDue(10, filterFor("plain"))).map((task) => task.id)).toEqual([other]);
      expect(await bed.store.claimByIds([a!], filterFor("plain"))).toEqual([{ id: a, claimed: null, reason: "limited", name: "mail", queue: "default" }]);
      // A claimer that counts the queue takes what fits.
      const counted = await bed.store.claimByIds([a!, b!, c!], limited("counting", { default: { concurrency: 2 } }));
      expect(counted.filter((result) => result.claimed).map((result) => result.id)).toEqual([a, b]);
      expect(await running(bed)).toBe(2);
      await bed.store.syncQueues([{ queue: "default", concurrency: null, rateLimit: null }]);
      expect((await bed.store.claimDue(10, filterFor("plain"))).map((task) => task.id)).toEqual([c]);
    },

    "a rate in the row holds a queue back from claims that do not count it, as a concurrency does": async (bed) => {
      const [a] = await bed.insert([{}]);
      await bed.store.syncQueues([{ queue: "default", concurrency: null, rateLimit: { starts: 5, perMs: 1000 } }]);
      expect(await bed.store.claimDue(10, filterFor("plain"))).toEqual([]);
      expect(await bed.store.claimByIds([a!], filterFor("plain"))).toEqual([{ id: a, claimed: null, reason: "limited", name: "mail", queue: "default" }]);
      const counted = await bed.store.claimByIds([a!], limited("counting", { default: { rateLimit: { starts: 5, perMs: 1000 } } }));
      expect(counted[0]!.claimed?.id).toBe(a);
    },
  },

  listQueues: {
    "no queue rows: an empty list": async (bed) => {
      expect(await bed.store.listQueues()).toEqual([]);
    },
  },

  queueUsage: {
    "counts a queue's running tasks and the starts within its rate window; nothing for a queue never claimed": async (bed) => {
      expect(await bed.store.queueUsage("default", 60_000)).toMatchObject({ running: 0, starts: 0 });
      await bed.insert([{}, {}, {}, { queue: "other" }]);
      const limits = { default: { rateLimit: { starts: 10, perMs: 60_000 } }, other: { concurrency: 5 } };
      const claimed = await bed.store.claimDue(2, limited("w1", limits));
      expect(claimed).toHaveLength(2);
      await bed.store.claimDue(10, limited("w1", limits));
      expect(await bed.store.queueUsage("default", 60_000)).toMatchObject({ running: 3, starts: 3 });
      expect(await bed.store.queueUsage("default")).toMatchObject({ running: 3, starts: 0 });
      await bed.store.complete("w1", [{ id: claimed[0]!.id, resultJson: "null" }]);
      expect(await bed.store.queueUsage("default", 60_000), "a finished run frees its slot, its start stays in the window").toMatchObject({
        running: 2,
        starts: 3,
      });
      expect(await bed.store.queueUsage("other")).toMatchObject({ running: 1, starts: 0 });
    },
  },

  claimDue: {
    "a queue's concurrency: never more running than the limit, whatever is asked; a completion frees one slot": async (bed) => {
      const ids = await bed.insert(Array.from({ length: 6 }, (_, i) => ({ priority: 6 - i })));
      const limits = { default: { concurrency: 2 } };
      const refusals: ClaimRefusal[] = [];
      const first = await bed.store.claimDue(10, limited("w1", limits, refusals));
      expect(first.map((task) => task.id)).toEqual(ids.slice(0, 2));
      expect(await bed.store.claimDue(10, limited("w2", limits, refusals))).toEqual([]);
      expect(refusals).toContainEqual({ queue: "default", reason: "limited" });
      await bed.store.complete("w1", [{ id: first[0]!.id, resultJson: "null" }]);
      expect((await bed.store.claimDue(10, limited("w2", limits))).map((task) => task.id)).toEqual([ids[2]]);
      expect(await running(bed)).toBe(2);
    },

    "concurrent claimers of a limited queue take no more than the limit together": async (bed) => {
      await bed.insert(Array.from({ length: 30 }, () => ({})));
      const limits = { default: { concurrency: 7 } };
      const other = bed.other();
      const claims = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? bed.store : other).claimDue(5, limited(`w${i}`, limits))));
      expect(claims.flat()).toHaveLength(7);
      expect(await running(bed)).toBe(7);
    },

    "an expired lease holds its slot until recovery puts the task back; then the slot is free once": async (bed) => {
      const [stale, next, third] = await bed.insert([{ priority: 2 }, { priority: 1 }, {}]);
      await bed.expired([stale!], "lost-worker");
      const limits = { default: { concurrency: 1 } };
      expect(await bed.store.claimDue(10, limited("w", limits)), "an expired, unrecovered lease still runs").toEqual([]);
      expect((await bed.store.requeueExpired([stale!])).map((task) => task.status)).toEqual(["pending"]);
      const after = await bed.store.claimDue(10, limited("w", limits));
      expect(after.map((task) => task.id)).toEqual([stale]);
      expect(await bed.store.claimDue(10, limited("w3", limits))).toEqual([]);
      for (const id of [next!, third!]) expect((await bed.task(id)).status).toBe("pending");
    },

    "a stale owner's release, completion or failure frees no slot: the new owner's run keeps it": async (bed) => {
      const [task, waiting] = await bed.insert([{ priority: 1 }, {}]);
      await bed.expired([task!], "stale-worker");
      await bed.store.requeueExpired([task!]);
      const limits = { default: { concurrency: 1 } };
      expect((await bed.store.claimDue(1, limited("new-owner", limits))).map((t) => t.id)).toEqual([task]);
      expect(await bed.store.release("stale-worker", [task!])).toEqual([]);
      expect(await bed.store.complete("stale-worker", [{ id: task!, resultJson: "null" }])).toEqual([]);
      expect(await bed.store.fail("stale-worker", [{ id: task!, error: "late", delayMs: 0, finalReason: null }])).toEqual([]);
      expect(await bed.store.claimDue(1, limited("third", limits)), "the slot is still held by the new owner").toEqual([]);
      expect(await running(bed)).toBe(1);
      expect((await bed.task(waiting!)).status).toBe("pending");
    },

    "a task's concurrency per key: at most its limit per key, and a full key's backlog does not hold back other keys": async (bed) => {
      const specs: Array<{ name?: string; concurrencyKey: string; priority: number }> = [
        ...Array.from({ length: 5 }, () => ({ concurrencyKey: "acct-a", priority: 5 })),
        { concurrencyKey: "acct-b", priority: 1 },
        { concurrencyKey: "acct-c", priority: 1 },
        { name: "image", concurrencyKey: "acct-a", priority: 0 },
      ];
      const ids = await bed.insert(specs);
      const limits = { default: { tasks: { mail: 2 } } };
      const groups = (tasks: Array<{ id: string }>) =>
        tasks.map((task) => `${specs[ids.indexOf(task.id)]!.name ?? "mail"}:${specs[ids.indexOf(task.id)]!.concurrencyKey}`).sort();
      // Tasks of equal priority inserted together share run_at: which of acct-b and acct-c comes first is not fixed.
      const claimed = await bed.store.claimDue(3, limited("w", limits));
      expect(groups(claimed).slice(0, 2)).toEqual(["mail:acct-a", "mail:acct-a"]);
      expect(["mail:acct-b", "mail:acct-c"]).toContain(groups(claimed)[2]);
      const more = await bed.store.claimDue(10, limited("w2", limits));
      expect(groups([...claimed, ...more])).toEqual(["image:acct-a", "mail:acct-a", "mail:acct-a", "mail:acct-b", "mail:acct-c"]);
      expect(await bed.store.claimDue(10, limited("w3", limits))).toEqual([]);
    },

    "a rate of starts: no more than its starts within the window; the window frees them again": async (bed) => {
      const ids = await bed.insert(Array.from({ length: 5 }, () => ({})));
      const perMs = 400;
      const limits = { default: { rateLimit: { starts: 2, perMs } } };
      const refusals: ClaimRefusal[] = [];
      const first = await bed.store.claimDue(10, limited("w", limits, refusals));
      const firstAt = await bed.store.now();
      expect(first).toHaveLength(2);
      await bed.store.complete(
        "w",
        first.map((task) => ({ id: task.id, resultJson: "null" })),
      );
      expect(await bed.store.claimDue(10, limited("w", limits, refusals)), "completions do not give starts back").toEqual([]);
      const refusal = refusals.find((r) => r.retryInMs !== undefined);
      expect(refusal?.retryInMs).toBeGreaterThan(0);
      expect(refusal?.retryInMs).toBeLessThanOrEqual(perMs);
      await bed.untilPast(new Date(firstAt.getTime() + perMs));
      const second = await bed.store.claimDue(10, limited("w", limits));
      expect(second).toHaveLength(2);
      expect([...first, ...second].map((task) => task.id)).toEqual(ids.slice(0, 4));
    },
  },

  claimByIds: {
    "ids beyond a queue's concurrency come back limited and stay pending; ids of other queues are claimed as usual": async (bed) => {
      const [a, b, c, other] = await bed.insert([{}, {}, {}, { queue: "other" }]);
      const refusals: ClaimRefusal[] = [];
      const results = await bed.store.claimByIds([a!, b!, c!, other!], limited("w", { default: { concurrency: 2 } }, refusals));
      expect(results.map((result) => (result.claimed ? "claimed" : result.reason))).toEqual(["claimed", "claimed", "limited", "claimed"]);
      expect(results[2]).toEqual({ id: c, claimed: null, reason: "limited", name: "mail", queue: "default" });
      expect((await bed.task(c!)).status).toBe("pending");
      expect(refusals).toContainEqual({ queue: "default", reason: "limited" });
    },

    "a queue served alone: ids of a full key are limited, others claimed; reasons of the rest as usual": async (bed) => {
      const [a1, a2, b1, done] = await bed.insert([{ concurrencyKey: "a" }, { concurrencyKey: "a" }, { concurrencyKey: "b" }, {}]);
      await bed.succeed([done!]);
      const filter = { ...limited("w", { default: { tasks: { mail: 1 } } }), queues: ["default"] };
      const results = await bed.store.claimByIds([a1!, a2!, b1!, done!], filter);
      expect(results.map((result) => (result.claimed ? "claimed" : result.reason))).toEqual(["claimed", "limited", "claimed", "not-pending"]);
      expect((await bed.store.claimByIds([a2!], filter))[0]).toMatchObject({ reason: "limited" });
    },

    "a key's running count is read under the queue's lock: a claim of the key that committed while it waited counts": async (bed) => {
      await claimWhileHeld(bed, { default: { tasks: { mail: 1 } } }, { concurrencyKey: "a" });
    },

    "a queue's running count is read under its lock: a claim that committed while the next one waited counts": async (bed) => {
      await claimWhileHeld(bed, { default: { concurrency: 1 } }, {});
    },

    "a claim refused by a limit still holds the queue's lock until its transaction ends: another claim waits": async (bed) => {
      const [first, second, third] = await bed.insert([{}, {}, {}]);
      const limits = { default: { concurrency: 1 } };
      expect((await bed.store.claimByIds([first!], limitedDefault("w", limits)))[0]).toMatchObject({ claimed: { id: first } });
      const { held, next, wentAhead } = await whileHeld(
        bed,
        (tx) => tx.claimByIds([second!], limitedDefault("holder", limits)),
        () => bed.other().claimByIds([third!], limitedDefault("other", limits)),
        async () => undefined,
      );
      expect(held).toEqual([expect.objectContaining({ id: second, claimed: null, reason: "limited" })]);
      expect(wentAhead, "the other claim went ahead while the refused claim's transaction was open").toBe(false);
      expect(next[0]).toMatchObject({ id: third, claimed: null, reason: "limited" });
    },

    "a rate counts a start recorded after the claim began: one that another claim made while it waited for the lock": async (bed) => {
      // The holder takes the queue's lock first (a claim of an id that does not exist), the waiter begins its claim
      // and waits for that lock, and only then does the holder claim a task of its own and commit: the waiter's claim
      // began before that start, yet must count it (one start per minute: it is refused).
      const [first, second] = await bed.insert([{}, {}]);
      const limits = { default: { rateLimit: { starts: 1, perMs: 60_000 } } };
      const { finished, next } = await whileHeld(
        bed,
        (tx) => tx.claimByIds(["00000000-0000-4000-8000-000000000000"], limitedDefault("holder", limits)),
        () => bed.other().claimByIds([second!], limitedDefault("waiter", limits)),
        (tx) => tx.claimByIds([first!], limitedDefault("holder", limits)),
      );
      expect(finished[0]).toMatchObject({ id: first, claimed: { id: first } });
      expect(next[0]).toMatchObject({ id: second, claimed: null, reason: "limited" });
      expect((await bed.task(second!)).status).toBe("pending");
    },

    "a queue served alone: ids within its concurrency are claimed, the rest limited; missing and finished ids say so": async (bed) => {
      const [a, b, c, d, done] = await bed.insert([{}, {}, {}, {}, {}]);
      await bed.succeed([done!]);
      const refusals: ClaimRefusal[] = [];
      const filter = { ...limited("w", { default: { concurrency: 3 } }, refusals), queues: ["default"] };
      const missing = "00000000-0000-4000-8000-000000000000";
      const first = await bed.store.claimByIds([a!, missing, b!, done!], filter);
      expect(first.map((result) => (result.claimed ? "claimed" : result.reason))).toEqual(["claimed", "missing", "claimed", "not-pending"]);
      expect(refusals).toEqual([]);
      const second = await bed.store.claimByIds([c!, d!], filter);
      expect(second.map((result) => (result.claimed ? "claimed" : result.reason))).toEqual(["claimed", "limited"]);
      expect(refusals).toContainEqual({ queue: "default", reason: "limited" });
      expect(await running(bed)).toBe(3);
      expect((await bed.task(d!)).status).toBe("pending");
    },

    "a queue served alone with a rate: claims by id count their starts, completions give none back": async (bed) => {
      const [a, b, c, d] = await bed.insert([{}, {}, {}, {}]);
      const refusals: ClaimRefusal[] = [];
      const filter = { ...limited("w", { default: { concurrency: 100, rateLimit: { starts: 3, perMs: 60_000 } } }, refusals), queues: ["default"] };
      const first = await bed.store.claimByIds([a!, b!], filter);
      expect(first.every((result) => result.claimed !== null)).toBe(true);
      await bed.store.complete(
        "w",
        [a!, b!].map((id) => ({ id, resultJson: "null" })),
      );
      const second = await bed.store.claimByIds([c!, d!], filter);
      expect(second.map((result) => (result.claimed ? "claimed" : result.reason))).toEqual(["claimed", "limited"]);
      const refusal = refusals.find((r) => r.retryInMs !== undefined);
      expect(refusal?.retryInMs).toBeGreaterThan(0);
      expect(refusal?.retryInMs).toBeLessThanOrEqual(60_000);
      expect((await bed.store.claimByIds([d!], filter))[0]).toMatchObject({ reason: "limited" });
    },
  },
});
