// What a handler's ctx.step offers: named steps that run once per task and are replayed by later runs, a step whose
// writes commit with its record, sleeps and waits for events that hand the task back to the queue meanwhile.

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
}
