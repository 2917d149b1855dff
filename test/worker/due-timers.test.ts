// The worker's timers for tasks due later: due order with one timer, the cap (the latest dropped), a task found not due
// put back a bounded number of times, and close() leaving no timer behind.

import { afterEach, describe, expect, it } from "vitest";
import { DueTimers, type TimedIds } from "../../src/worker/due-timers.js";
import { waitUntil } from "../support/wait.js";

function timeouts(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;
}

interface Claim {
  ids: string[];
  queue: string;
  at: number;
  timed: TimedIds;
}

describe("due timers", () => {
  const opened: DueTimers[] = [];
  const claims: Claim[] = [];
  let dropped = 0;

  function timers(capacity?: number): DueTimers {
    const made = new DueTimers({
      claim: (ids, queue, timed) => void claims.push({ ids, queue, at: performance.now(), timed }),
      dropped: (n) => (dropped += n),
      capacity,
    });
    opened.push(made);
    return made;
  }

  afterEach(() => {
    for (const made of opened.splice(0)) made.close();
    claims.length = 0;
    dropped = 0;
  });

  it("claims each task at its time, never before, earliest first, with one timer however many it holds", async () => {
    const due = timers();
    const before = timeouts();
    const start = performance.now();
    due.add("default", [
      { id: "c", dueAt: start + 60 },
      { id: "a", dueAt: start + 20 },
    ]);
    due.add("other", [{ id: "b", dueAt: start + 40 }]);
    expect(timeouts()).toBe(before + 1);
    await waitUntil(() => claims.length === 3, "three claims", 10_000);
    expect(claims.map((claim) => [claim.queue, claim.ids])).toEqual([
      ["default", ["a"]],
      ["other", ["b"]],
      ["default", ["c"]],
    ]);
    expect(claims[0]!.at).toBeGreaterThanOrEqual(start + 20);
    expect(claims[2]!.at).toBeGreaterThanOrEqual(start + 60);
    expect(due.size).toBe(0);
    expect(timeouts()).toBe(before);
  });

  it("re-arms for an earlier task that arrives later", async () => {
    const due = timers();
    const start = performance.now();
    due.add("default", [{ id: "late", dueAt: start + 60_000 }]);
    due.add("default", [{ id: "soon", dueAt: start + 10 }]);
    await waitUntil(() => claims.length === 1, "the earlier task's claim", 10_000);
    expect(claims[0]!.ids).toEqual(["soon"]);
    expect(due.size).toBe(1);
  });

  it("keeps at most its capacity, dropping the latest", async () => {
    const due = timers(3);
    const start = performance.now();
    due.add(
      "default",
      [50, 10, 40, 20, 30].map((ms) => ({ id: `t${ms}`, dueAt: start + ms })),
    );
    expect(due.size).toBe(3);
    expect(dropped).toBe(2);
    await waitUntil(() => claims.flatMap((claim) => claim.ids).length === 3, "three claims", 10_000);
    expect(claims.flatMap((claim) => claim.ids)).toEqual(["t10", "t20", "t30"]);
  });

  it("puts a task found not due back for a short while, eight times at most", async () => {
    const due = timers();
    due.add("default", [{ id: "early", dueAt: performance.now() }]);
    let answers = 0;
    for (let round = 1; round <= 9; round++) {
      await waitUntil(() => claims.length === round, `claim ${round}`, 10_000);
      answers += claims[round - 1]!.timed.notDue("early") ? 1 : 0;
    }
    expect(answers).toBe(8);
    expect(due.size).toBe(0);
  });

  it("claims once more a task the claim said was taken, and not twice", async () => {
    const due = timers();
    due.add("default", [{ id: "raced", dueAt: performance.now() }]);
    await waitUntil(() => claims.length === 1, "the first claim", 10_000);
    expect(claims[0]!.timed.taken("raced")).toBe(true);
    await waitUntil(() => claims.length === 2, "the second claim", 10_000);
    expect(claims[1]!.timed.taken("raced")).toBe(false);
    expect(due.size).toBe(0);
  });

  it("holds no timer once closed", () => {
    const before = timeouts();
    const due = timers();
    due.add("default", [{ id: "later", dueAt: performance.now() + 60_000 }]);
    expect(timeouts()).toBe(before + 1);
    due.close();
    expect(timeouts()).toBe(before);
    due.add("default", [{ id: "after", dueAt: performance.now() }]);
    expect(timeouts()).toBe(before);
  });
});
