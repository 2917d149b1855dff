// The worker's counting semaphores and its claim budget: plain logic, no services.

import { describe, expect, it } from "vitest";
import { AHEAD_WINDOW_MS, ClaimBudget } from "../../src/worker/claim-budget.js";
import { Slots } from "../../src/worker/slots.js";

describe("Slots", () => {
  it("serves waiters in arrival order and turns them away when closed", async () => {
    const slots = new Slots(1);
    expect(await slots.acquire()).toBe(true);
    const order: string[] = [];
    const a = slots.acquire().then((ok) => order.push(`a:${ok}`));
    const b = slots.acquire().then((ok) => order.push(`b:${ok}`));
    const c = slots.acquire().then((ok) => order.push(`c:${ok}`));
    slots.release();
    await a;
    slots.close();
    await Promise.all([b, c]);
    expect(order).toEqual(["a:true", "b:false", "c:false"]);
    expect(await slots.acquire()).toBe(false);
  });

  it("acquireUpTo waits for one slot, then takes as many as are free, up to its max", async () => {
    const slots = new Slots(5);
    expect(await slots.acquireUpTo(3)).toBe(3);
    expect(await slots.acquireUpTo(10)).toBe(2);
    const waiting = slots.acquireUpTo(10);
    slots.release(3);
    expect(await waiting).toBe(3);
    expect(slots.free).toBe(0);
  });

  it("a raised limit hands the new slots to waiters at once; a lowered one holds back releases", async () => {
    const slots = new Slots(1);
    await slots.acquire();
    const first = slots.acquire();
    const second = slots.acquire();
    slots.setLimit(3);
    expect(await Promise.all([first, second])).toEqual([true, true]);
    slots.setLimit(1);
    const third = slots.acquire();
    let got = false;
    void third.then(() => (got = true));
    slots.release(); // 3 held, limit 1: nobody gets it
    slots.release(); // 2 held
    await Promise.resolve();
    expect(got).toBe(false);
    slots.release(); // 1 held: now below... still at the limit once the waiter takes it
    expect(await third).toBe(true);
    expect(slots.free).toBe(0);
  });

  it("a waiter that gave up after its timeout gets nothing, and the slot it would have had goes to the next waiter", async () => {
    const slots = new Slots(1);
    await slots.acquire();
    expect(await slots.acquireUpTo(3, 20)).toBe(0);
    const next = slots.acquire();
    slots.release();
    expect(await next).toBe(true);
    expect(slots.free).toBe(0);
    slots.release();
    expect(slots.free).toBe(1);
  });

  it("passes a released slot over thousands of waiters that gave up to the next one that waits", async () => {
    const slots = new Slots(1);
    await slots.acquire();
    // Every slot held for longer than these claims wait, as while the database is out of reach.
    const gaveUp = await Promise.all(Array.from({ length: 20_000 }, () => slots.acquire(1)));
    expect(gaveUp.every((ok) => !ok)).toBe(true);
    const next = slots.acquire();
    slots.release();
    expect(await next).toBe(true);
    slots.release();
    expect(slots.free).toBe(1);
  });

  it("releases thousands of waiters in order", async () => {
    const slots = new Slots(1);
    await slots.acquire();
    const served: number[] = [];
    const all = Array.from({ length: 5000 }, (_, n) => slots.acquire().then(() => served.push(n)));
    for (let n = 0; n < 5000; n++) slots.release();
    await Promise.all(all);
    expect(served).toEqual(Array.from({ length: 5000 }, (_, n) => n));
  });
});

describe("ClaimBudget", () => {
  it("starts at the concurrency, grows with the pace of run starts up to claimAhead, and shrinks when it slows", () => {
    let now = 0;
    const budget = new ClaimBudget(10, 1000, now);
    expect(budget.limit(now)).toBe(10);
    // 10 starts per ms: known after 64 starts; 100 ms of work is 1000 tasks, capped at claimAhead.
    for (let n = 0; n < 64; n++) budget.started();
    now += 6.4;
    expect(budget.limit(now)).toBe(1010);
    // Then 3 starts per 100 ms: the pace decays by halves, not at once.
    const limits: number[] = [];
    for (let step = 0; step < 24; step++) {
      budget.started();
      budget.started();
      budget.started();
      now += 100;
      limits.push(budget.limit(now));
    }
    expect(limits[0]).toBeLessThan(1010);
    expect(limits[0]).toBeGreaterThan(limits[23]!);
    // Settled at the slow pace: 3 starts per 100 ms is 3 tasks ahead.
    expect(limits[23]).toBeGreaterThanOrEqual(10 + 3 * (AHEAD_WINDOW_MS / 100));
    expect(limits[23]).toBeLessThanOrEqual(11 + 3 * (AHEAD_WINDOW_MS / 100));
  });

  it("claims nothing ahead with claimAhead 0, and little for slow handlers", () => {
    let now = 0;
    const none = new ClaimBudget(4, 0, now);
    const slow = new ClaimBudget(4, 1000, now);
    for (let second = 0; second < 5; second++) {
      for (let n = 0; n < 4; n++) {
        none.started();
        slow.started();
      }
      now += 1000;
      expect(none.limit(now)).toBe(4);
      expect(slow.limit(now)).toBe(5); // 4 starts a second: 0.4 tasks per 100 ms, rounded up
    }
  });
});
