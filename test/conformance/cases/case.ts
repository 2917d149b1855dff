// The shape of a conformance case: a name, the guarantee it checks, and a run that throws on any violation. A case
// that a broken store must fail names that store, so the suite proves it can fail.

import type { BrokenKind } from "../broken-stores.js";
import type { ConformanceBed } from "../harness.js";

export interface ConformanceCase {
  name: string;
  /** Rejects with the violation when the dialect breaks the guarantee. */
  run(bed: ConformanceBed): Promise<void>;
  /** The broken store this case must catch. */
  catches?: BrokenKind;
  /** Longest a passing run takes here, for the test's timeout. Default 30 s. */
  timeoutMs?: number;
}

/** Throws `message` unless `condition` holds. */
export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`violation: ${message}`);
}

/** Polls `predicate` every 25 ms; throws `what` after `timeoutMs`. */
export async function eventually(predicate: () => Promise<boolean> | boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The claim filter of a pretend worker that takes every conformance task. */
export function filterFor(owner: string, leaseMs = 30_000) {
  return { owner, leaseMs, names: ["run", "fail", "effect"], queues: ["default"] };
}
