// The events the enqueue, the worker and the cleaner report about tasks, and the listener interface that receives
// them: the OpenTelemetry metrics are one listener; another exporter (Prometheus) is another, with no change elsewhere.

/** Where a run happens: the store's dialect and the worker's wake-up transport. */
export interface RunPlace {
  /** "postgresql", "sqlite" or "mysql". */
  dialect: string;
  /** "rabbitmq", "notify", "in-process" or "polling". */
  transport: string;
}

/** One run of one task: what every run event carries. */
export interface RunEvent extends RunPlace {
  taskId: string;
  taskName: string;
  queue: string;
  /** This run's attempt number (1 for the first run). */
  attempt: number;
}

/** How a run ended, as written to the table (or not written). */
export type RunOutcome =
  /** The task succeeded. */
  | "succeeded"
  /** The run failed; the task is pending again for a later attempt. */
  | "retry"
  /** The run failed and the task is dead (attempts used up, unrecoverable, invalid payload, unknown task). */
  | "dead"
  /** Nothing was recorded for this run: the worker lost the task's lease, or gave up writing the outcome. */
  | "lost"
  /** The worker shut down and gave the task back to pending without using an attempt. */
  | "released"
  /** A workflow's sleep or wait gave the task back to the queue without using an attempt. */
  | "suspended";

/** What a listener hears. Every method is optional; none may throw (a throw is caught and dropped). */
export interface TelemetryListener {
  /**
   * Whether the listener records anything now (the OpenTelemetry metrics: while a meter provider is registered). A run
   * that no span and no active listener would observe skips its reports. Absent: always.
   */
  active?(): boolean;
  /** Enqueues committed: `count` new tasks in `queue` (a dedupe key that matched an existing task counts none). */
  tasksSent?(event: { queue: string; count: number; dialect: string }): void;
  /** A run started, `waitMs` after the task became due (its run_at, by the database's clock). */
  taskStarted?(event: RunEvent, waitMs: number): void;
  /** A run ended, `durationMs` after it started. `errorType` names the failure's class, for "retry" and "dead". */
  taskEnded?(event: RunEvent, outcome: RunOutcome, durationMs: number, errorType: string | undefined): void;
  /** The cleaner recovered expired leases: `retried` tasks went back to pending, `dead` became dead, per queue. */
  leasesRecovered?(event: { queue: string; retried: number; dead: number }): void;
  /** The cleaner re-published `count` wake-ups (lost ones, and those of tasks that became due). */
  wakeupsRepublished?(event: { count: number }): void;
}
