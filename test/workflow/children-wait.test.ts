// A wait for children decided from their rows, without a database: the handles and options checked with errors that
// name the value and the fix, and when the wait is over under each policy.

import { describe, expect, it } from "vitest";
import { childHandles, childrenWait, endedChildren } from "../../src/workflow/children-wait.js";
import type { ChildState } from "../../src/store/steps.js";
import { ChildTaskFailedError } from "../../src/index.js";

const handles = [
  { id: "c1", name: "pack" },
  { id: "c2", name: "pack" },
  { id: "c3", name: "ship" },
];
const state = (id: string, status: ChildState["status"], extra: Partial<ChildState> = {}): ChildState => ({
  id,
  name: "pack",
  status,
  resultJson: status === "succeeded" ? `"${id}"` : null,
  lastError: status === "dead" ? "Error: no" : null,
  ...extra,
});
const ended = (states: ChildState[], options: Parameters<typeof childrenWait>[3] = {}) =>
  endedChildren("order", "packed", handles, states, childrenWait("order", "packed", handles.length, options));

describe("a wait for children", () => {
  it("checks what it is given, naming the value and the fix", () => {
    expect(() => childHandles("order", "packed", "c1", "pass the handles startChildren returned")).toThrow(
      'Step "packed" of task "order": expected an array of tasks, got string: pass the handles startChildren returned.',
    );
    expect(() => childHandles("order", "packed", [{ id: "c1" }], "fix")).toThrow("item 0 is not a task (it has no string id and name)");
    expect(childHandles("order", "packed", [{ id: "c1", name: "pack", queue: "q" }], "fix")).toEqual([{ id: "c1", name: "pack" }]);
    expect(() => childrenWait("order", "packed", 3, { until: 4 })).toThrow('until takes "all", "first" or a whole number from 1 to the 3 children given, got 4.');
    expect(() => childrenWait("order", "packed", 3, { onFailure: "skip" as "fail" })).toThrow('onFailure takes "fail", "collect" or "continue", got "skip".');
    expect(() => childrenWait("order", "packed", 3, { recheckMs: 10 })).toThrow("recheckMs takes milliseconds from 1000 to");
    expect(childrenWait("order", "packed", 3, {})).toEqual({ needed: 3, onFailure: "fail", recheckMs: 30_000 });
  });

  it("is over when enough children ended: all, the first, a count", () => {
    expect(ended([state("c1", "succeeded"), state("c2", "running"), state("c3", "pending")])).toBeUndefined();
    expect(ended([state("c1", "succeeded"), state("c2", "running"), state("c3", "pending")], { until: "first" })).toEqual([
      { id: "c1", name: "pack", status: "succeeded", result: "c1" },
      { id: "c2", name: "pack", status: "running" },
      { id: "c3", name: "ship", status: "pending" },
    ]);
    expect(ended([state("c1", "succeeded"), state("c2", "succeeded"), state("c3", "pending")], { until: 2 })).toHaveLength(3);
  });

  it("under 'fail' throws for a dead or cancelled child; 'collect' counts it; 'continue' counts only successes until all ended", () => {
    expect(() => ended([state("c1", "dead"), state("c2", "pending"), state("c3", "pending")])).toThrow(ChildTaskFailedError);
    expect(() => ended([state("c1", "cancelled"), state("c2", "pending"), state("c3", "pending")])).toThrow('child task "pack" (c1) ended cancelled');
    expect(ended([state("c1", "dead"), state("c2", "pending"), state("c3", "pending")], { until: 1, onFailure: "collect" })?.[0]).toEqual({
      id: "c1",
      name: "pack",
      status: "dead",
      error: "Error: no",
    });
    expect(ended([state("c1", "dead"), state("c2", "pending"), state("c3", "pending")], { until: 1, onFailure: "continue" })).toBeUndefined();
    expect(ended([state("c1", "dead"), state("c2", "dead"), state("c3", "dead")], { onFailure: "continue" })).toHaveLength(3);
  });

  it("refuses a handle that is not a child of the task", () => {
    expect(() => ended([state("c1", "succeeded"), state("c2", "succeeded")])).toThrow('task c3 ("ship") is not a child of this task');
  });
});
