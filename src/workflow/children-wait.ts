// A wait for children, decided from their rows: the handles checked, the options checked and filled in, and whether
// enough of the children have ended (or one failed, under the "fail" policy).

import type { ChildState } from "../store/steps.js";
import { MAX_WAIT_MS, type ChildHandle, type ChildOutcome, type ChildrenWaitOptions } from "./steps-api.js";
import { ChildTaskFailedError, StepError } from "./workflow-errors.js";

/** The recheck when none is given: a child's end wakes the parent sooner; this catches the ends no worker wrote. */
const DEFAULT_RECHECK_MS = 30_000;
const MIN_RECHECK_MS = 1000;

/** A wait's options, checked. */
export interface ChildrenWait {
  /** How many of the children must count as ended. */
  needed: number;
  onFailure: "fail" | "collect" | "continue";
  recheckMs: number;
}

/** The handles in `value` (id and name of each), or a StepError saying what was given and `fix`. */
export function childHandles(taskName: string, stepName: string, value: unknown, fix: string): ChildHandle[] {
  const bad = (problem: string) => new StepError(taskName, stepName, `${problem}: ${fix}.`);
  if (!Array.isArray(value)) throw bad(`expected an array of tasks, got ${value === null ? "null" : typeof value}`);
  return value.map((child: unknown, index) => {
    const { id, name } = (child ?? {}) as { id?: unknown; name?: unknown };
    if (typeof id !== "string" || typeof name !== "string") throw bad(`item ${index} is not a task (it has no string id and name)`);
    return { id, name };
  });
}

export function childrenWait(taskName: string, stepName: string, count: number, options: ChildrenWaitOptions): ChildrenWait {
  const bad = (problem: string) => new StepError(taskName, stepName, problem);
  const { until = "all", onFailure = "fail", recheckMs = DEFAULT_RECHECK_MS } = options ?? {};
  let needed: number;
  if (until === "all") needed = count;
  else if (until === "first") needed = Math.min(1, count);
  else if (typeof until === "number" && Number.isInteger(until) && until >= 1 && until <= count) needed = until;
  else throw bad(`until takes "all", "first" or a whole number from 1 to the ${count} children given, got ${JSON.stringify(until)}.`);
  if (onFailure !== "fail" && onFailure !== "collect" && onFailure !== "continue") {
    throw bad(`onFailure takes "fail", "collect" or "continue", got ${JSON.stringify(onFailure)}.`);
  }
  if (typeof recheckMs !== "number" || !Number.isFinite(recheckMs) || recheckMs < MIN_RECHECK_MS || recheckMs > MAX_WAIT_MS) {
    throw bad(`recheckMs takes milliseconds from ${MIN_RECHECK_MS} to ${MAX_WAIT_MS}, got ${String(recheckMs)}.`);
  }
  return { needed, onFailure, recheckMs };
}

/**
 * Each child's outcome when the wait is over (enough ended, or every one ended), else undefined. Under "fail", the
 * first child found dead or cancelled throws ChildTaskFailedError.
 */
export function endedChildren(
  taskName: string,
  stepName: string,
  handles: readonly ChildHandle[],
  states: readonly ChildState[],
  wait: ChildrenWait,
): ChildOutcome[] | undefined {
  const byId = new Map(states.map((state) => [state.id.toLowerCase(), state]));
  const outcomes = handles.map((handle): ChildOutcome => {
    const state = byId.get(handle.id.toLowerCase());
    if (!state) {
      throw new StepError(
        taskName,
        stepName,
        `task ${handle.id} ("${handle.name}") is not a child of this task: wait only for the handles startChildren returned (a child's row pruned before the wait ended is gone too: keep retentionMs above a workflow's longest wait).`,
      );
    }
    const { id, name } = handle;
    if (state.status === "succeeded") return { id, name, status: "succeeded", result: state.resultJson === null ? null : JSON.parse(state.resultJson) };
    if (state.status === "dead" || state.status === "cancelled") {
      if (wait.onFailure === "fail") throw new ChildTaskFailedError(taskName, stepName, { id, name, status: state.status, error: state.lastError });
      return { id, name, status: state.status, error: state.lastError };
    }
    return { id, name, status: state.status === "running" ? "running" : "pending" };
  });
  const ended = outcomes.filter((outcome) => outcome.status !== "pending" && outcome.status !== "running").length;
  const counted = wait.onFailure === "continue" ? outcomes.filter((outcome) => outcome.status === "succeeded").length : ended;
  return counted >= wait.needed || ended === outcomes.length ? outcomes : undefined;
}
