// What a handler's ctx.step offers: named steps that run once per task and are replayed by later runs, a step whose
// writes commit with its record, sleeps and waits for events that hand the task back to the queue meanwhile.

/** The longest sleep, wait or recheck: about ten years. */
export const MAX_WAIT_MS = 10 * 366 * 24 * 3600 * 1000;

/** What a step's function is told: how to make an outside call idempotent. */
export interface StepInfo {
  /** `<task id>:<seq>`: the same in every run of the task, for an outside call's idempotency key. */
  key: string;
  /** The run's attempt (the task's attempts counting this run). */
  attempt: number;
  /** The step's place in the handler's order of steps, from 1. */
  seq: number;
}

/** What a wait for an event ends with. */
export type EventResult<Payload> = { timedOut: false; payload: Payload } | { timedOut: true };

/** A wait for an event. */
export interface WaitOptions {
  /** The event's name, as the app sends it with `tx.task.signal(taskId, event, payload)`. */
  event: string;
  /** How long to wait, in milliseconds; past it the wait ends with `{ timedOut: true }`. Default: no deadline. */
  timeoutMs?: number;
}

/** A task a workflow started as its child (startChildren). */
export interface ChildHandle {
  id: string;
  name: string;
}

/** A child as a wait for children ended: succeeded with its result, dead or cancelled with its error, or not ended yet. */
export type ChildOutcome<Result = unknown> =
  | { id: string; name: string; status: "succeeded"; result: Result }
  | { id: string; name: string; status: "dead" | "cancelled"; error: string | null }
  | { id: string; name: string; status: "pending" | "running" };

/** A wait for children. */
export interface ChildrenWaitOptions {
  /** How many of the children must end: "all" (the default), "first" (one), or a number from 1 to their count. */
  until?: "all" | "first" | number;
  /**
   * A child that ends dead or cancelled: "fail" (the default) fails the wait at once with ChildTaskFailedError; "collect"
   * counts it as ended and returns it among the outcomes; "continue" returns it too, but counts only successes toward
   * `until` (the wait then ends when enough succeeded or every child has ended).
   */
  onFailure?: "fail" | "collect" | "continue";
  /**
   * How long the parent waits before looking again when no child's end wakes it, in ms (1,000 to about ten years;
   * default 30,000). A child's end written by a worker, by the cleaner's recovery of its lease or by an operator's
   * cancel wakes the parent at once; this is the backstop should a wake be lost.
   */
  recheckMs?: number;
}

/**
 * A handler's steps (`ctx.step`). Each call is one step, numbered in the order the handler calls them; a later run of
 * the same task (after a failure, a crash, a lost lease, a sleep or a wait) gets each recorded step's result back
 * without running it again, and must ask for the recorded steps in the same order. Results are stored as JSON: return
 * plain data. Names are for people (logs, `show`, the dashboard) and for the replay's check, 1 to 200 characters.
 */
export interface WorkflowSteps<Tx> {
  /**
   * Runs `fn` once and records its result; a later run returns the recorded result. At least once: a crash after `fn`
   * and before its record runs it again, so give an outside call `info.key` as its idempotency key.
   */
  run<Result>(name: string, fn: (info: StepInfo) => Result | Promise<Result>): Promise<Awaited<Result>>;
  /**
   * Runs `fn` in a transaction of the worker's Prisma client and records its result in the same transaction: its writes
   * through `tx` and the record commit together, exactly once. Enqueues through `tx` commit with them.
   */
  transaction<Result>(name: string, fn: (tx: Tx, info: StepInfo) => Promise<Result>): Promise<Awaited<Result>>;
  /**
   * Sleeps for `ms` milliseconds (0 to about 10 years) without holding a worker: the run ends and the task is due again
   * at the recorded wake-up time, on the database's clock.
   */
  sleep(name: string, ms: number): Promise<void>;
  /** Sleeps until `until` (a time in the past does not sleep), as sleep does. */
  sleepUntil(name: string, until: Date): Promise<void>;
  /**
   * Waits for event `options.event` sent to this task, without holding a worker: the run ends and the task is due
   * again when the event's transaction commits (or at the deadline). An event sent before the wait is kept and received
   * at once. Each event is received by one wait, oldest first.
   */
  waitForEvent<Payload = unknown>(name: string, options: WaitOptions): Promise<EventResult<Payload>>;
  /**
   * Starts children: `fn` enqueues them through `tx` (`tx.task.enqueue(...)`) and returns what its enqueues returned;
   * they, the step's record and their link to this task commit together, exactly once. Resolves their handles, for
   * waitForChildren. Cancelling this task cancels its pending children.
   */
  startChildren(name: string, fn: (tx: Tx, info: StepInfo) => Promise<ReadonlyArray<{ id: string; name: string }>>): Promise<ChildHandle[]>;
  /**
   * Waits for children this task started (all of them, the first, or a count: `options.until`) without holding a
   * worker: the run ends and the task is due again when a child ends. Resolves each child's outcome, in the order given;
   * the outcomes are recorded, and a later run gets the same ones back.
   */
  waitForChildren<Result = unknown>(name: string, children: readonly ChildHandle[], options?: ChildrenWaitOptions): Promise<Array<ChildOutcome<Result>>>;
}
