// The inputs and outputs of the store's workflow operations: a task's recorded steps, the step a run records, the
// suspension that hands a sleeping or waiting workflow back to the queue, and the events an app sends to a task.

import type { WakeupTarget } from "./task-writes.js";
import type { TaskStatus } from "./task-status.js";

/**
 * What a step is: a function run at least once, one whose writes commit with its record, a sleep, a wait for an event,
 * a start of children (a transaction that enqueues them), a wait for children.
 */
export type StepKind = "run" | "transaction" | "sleep" | "wait" | "children" | "wait-children";

/** One step a task recorded, as a later run replays it. */
export interface StepRecord {
  /** Its place in the handler's order of steps, from 1. */
  seq: number;
  name: string;
  kind: StepKind;
  /** The run (the task's attempts) that recorded it. */
  attempt: number;
  /** "waiting": a wait whose event has not come and whose deadline has not passed. */
  state: "done" | "waiting";
  /** The recorded result as JSON text ("null" for none); null while waiting. */
  resultJson: string | null;
  /** A sleep's wake-up time, a wait's deadline (null: a wait without one); null for the other kinds. */
  until: Date | null;
  createdAt: Date;
  finishedAt: Date | null;
}

/** A step's row as a dialect's SQL reads it (times in the dialect's own form, columns aliased `createdAt`, `finishedAt`). */
export interface StepRow {
  seq: unknown;
  name: string;
  kind: string;
  attempt: unknown;
  state: string;
  result: string | null;
  until: unknown;
  createdAt: unknown;
  finishedAt: unknown;
}

/** The StepRecord of a row; `time` reads the dialect's times (null for a missing one). */
export function toStepRecord(row: StepRow, time: (value: unknown) => Date | null): StepRecord {
  return {
    seq: Number(row.seq),
    name: row.name,
    kind: row.kind as StepKind,
    attempt: Number(row.attempt),
    state: row.state === "waiting" ? "waiting" : "done",
    resultJson: row.result,
    until: time(row.until),
    createdAt: time(row.createdAt)!,
    finishedAt: time(row.finishedAt),
  };
}

/** A step a run records. Guarded by the run: `owner` must hold the task's lease as the run of `attempt`. */
export interface NewStep {
  taskId: string;
  attempt: number;
  seq: number;
  name: string;
  kind: StepKind;
  /** The result as JSON text; null for a wait (recorded as waiting) and a sleep. */
  resultJson: string | null;
  /**
   * A sleep's wake-up or a wait's deadline: `inMs` from the database's now, or `at` an instant. Absent for a wait
   * without a deadline and for the other kinds.
   */
  until?: { inMs: number } | { at: Date };
}

/** What recordStep did. */
export interface RecordedStep {
  /** False when the run no longer holds the task, or another run recorded this step first: nothing was written. */
  written: boolean;
  /** For a step with `until`: how far ahead of the database's now it lies (0 when passed). */
  untilInMs?: number;
}

/** A sleeping or waiting workflow handed back to the queue by its run. */
export interface Suspension {
  id: string;
  /** The run (the task's attempts as its claim set them); another run of the task is left alone. */
  attempt: number;
  /** The sleep or wait step whose `until` makes the task due again (none: only an event does). */
  seq: number;
  /** The event a wait waits for: its sending makes the task due at once; if one is already there, it is due now. */
  event?: string;
  /** Already written by the step (a wait for children hands its task back itself): nothing more to write. */
  written?: SuspendedTask;
}

/** A suspended task, with how long until it is due again (null: only an event makes it due). */
export interface SuspendedTask extends WakeupTarget {
  dueInMs: number | null;
}

/** What a wait found. */
export type EventReceipt =
  /** An event came: it is consumed, and recorded as the wait's result. */
  | { kind: "received"; payloadJson: string }
  /** The deadline passed with no event: the wait is recorded as timed out. */
  | { kind: "timed-out" }
  /** Nothing yet: the deadline is `dueInMs` away (null: none). */
  | { kind: "waiting"; dueInMs: number | null }
  /** The run no longer holds the task, or another run ended the wait: nothing was written. */
  | { kind: "lost" };

/** What sendEvent did. */
export interface SentEvent {
  /** False when the task is missing or finished (succeeded, dead, cancelled): the event was not kept. */
  accepted: boolean;
  /** The task, when it waited for this event and the send made it due: its wake-up leaves with the commit. */
  woken?: WakeupTarget;
}

/** The longest event or step name. */
export const MAX_STEP_NAME_LENGTH = 200;

/** The run_at of a task that waits for an event without a deadline: only the event makes it due. */
export const FOREVER = new Date("9999-01-01T00:00:00.000Z");

/** The prefix of the names the package keeps for itself in `waiting_for`: no event sent or waited for may start with it. */
export const RESERVED_EVENT_PREFIX = "ptq:";

/** What a workflow's suspended task waits for while it waits for its children. */
export const CHILDREN_WAIT = `${RESERVED_EVENT_PREFIX}children`;

/** A workflow's child task as its parent reads it. */
export interface ChildState {
  id: string;
  name: string;
  status: TaskStatus;
  /** Its result as JSON text once it succeeded; null before and otherwise. */
  resultJson: string | null;
  /** Its last error (a dead child's reason for being dead); null when none. */
  lastError: string | null;
}

/** A child's row as a dialect's SQL reads it: the result selected as JSON text. */
export interface ChildRow {
  id: string;
  name: string;
  status: string;
  result: string | null;
  lastError: string | null;
}

export function toChildState(row: ChildRow): ChildState {
  return {
    id: row.id,
    name: row.name,
    status: row.status as TaskStatus,
    resultJson: row.status === "succeeded" ? (row.result ?? "null") : null,
    lastError: row.lastError,
  };
}

/** The statuses a child ends in: its parent counts it as finished. */
export const FINISHED_STATUSES = ["succeeded", "dead", "cancelled"] as const;

/** A workflow handed back to the queue while its children run. Guarded by the run, as a Suspension is. */
export interface ChildrenSuspension {
  id: string;
  attempt: number;
  /** The wait's step. */
  seq: number;
  /** How many of the task's children the run saw finished: the suspension holds only if none has finished since. */
  finished: number;
  /** When to look again should no child's end wake it (a child that died in the cleaner's hands, or was cancelled). */
  recheckMs: number;
}
