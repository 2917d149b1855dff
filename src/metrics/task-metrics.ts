// The counters and histograms of the runs and the cleaner seen by this process, fed by the telemetry events (one more
// TelemetryListener beside the OpenTelemetry metrics). One set per process, as a Prometheus target is one process.

import { DURATION_BUCKETS_SECONDS } from "../telemetry/duration-buckets.js";
import type { RunEvent, RunOutcome, TelemetryListener } from "../telemetry/telemetry-events.js";
import type { MetricFamily } from "./exposition.js";
import { Counter, Histogram } from "./instruments.js";

/** The prefix of every series name. */
export const METRIC_PREFIX = "prisma_task_queue_";

type RunLabels = "queue" | "task";

/** Where a run ends, by outcome: each run counts in exactly one of these once it ends. */
const ENDED_HELP: Record<RunOutcome, string> = {
  succeeded: "Runs that succeeded.",
  retry: "Runs that failed and left their task pending for another attempt.",
  dead: "Runs that failed and left their task dead (attempts used up, unrecoverable, invalid payload).",
  lost: "Runs whose outcome was not recorded: the worker lost the task's lease (the cleaner recovers the task).",
  released: "Runs the worker gave back to pending at shutdown, without using an attempt.",
  suspended: "Runs a workflow's sleep or wait ended, giving the task back to the queue without using an attempt.",
};

const ENDED_NAME: Record<RunOutcome, string> = { succeeded: "succeeded", retry: "failed", dead: "dead", lost: "lost", released: "released", suspended: "suspended" };

export class TaskMetrics {
  private readonly started = new Counter<RunLabels>(`${METRIC_PREFIX}tasks_started_total`, "Runs started by this process's workers.", ["queue", "task"]);
  private readonly ended = Object.fromEntries(
    Object.entries(ENDED_HELP).map(([outcome, help]) => [
      outcome,
      new Counter<RunLabels>(`${METRIC_PREFIX}tasks_${ENDED_NAME[outcome as RunOutcome]}_total`, help, ["queue", "task"]),
    ]),
  ) as Record<RunOutcome, Counter<RunLabels>>;
  private readonly processing = new Histogram<RunLabels | "outcome">(
    `${METRIC_PREFIX}task_processing_seconds`,
    "Duration of a run, from its start to its outcome written (or the run given up).",
    ["queue", "task", "outcome"],
    DURATION_BUCKETS_SECONDS,
  );
  private readonly waiting = new Histogram<RunLabels>(
    `${METRIC_PREFIX}task_wait_seconds`,
    "Time from a task becoming due (its run_at: the commit, or the delay's or retry's end) to its run's start.",
    ["queue", "task"],
    DURATION_BUCKETS_SECONDS,
  );
  private readonly recoveries = new Counter<"queue" | "outcome">(
    `${METRIC_PREFIX}lease_recoveries_total`,
    "Expired leases this process's cleaner recovered, by what became of the task (retry: pending again; dead).",
    ["queue", "outcome"],
  );
  private readonly republished = new Counter(
    `${METRIC_PREFIX}wakeups_republished_total`,
    "Wake-ups this process's cleaner re-published (lost ones, and those of delayed or retried tasks that came due).",
    [],
  );

  /** The listener that feeds these instruments. */
  readonly listener: TelemetryListener = {
    taskStarted: (event: RunEvent, waitMs: number) => {
      const labels = { queue: event.queue, task: event.taskName };
      this.started.add(labels);
      this.waiting.observe(labels, Math.max(0, waitMs) / 1000);
    },
    taskEnded: (event: RunEvent, outcome: RunOutcome, durationMs: number) => {
      this.ended[outcome].add({ queue: event.queue, task: event.taskName });
      this.processing.observe({ queue: event.queue, task: event.taskName, outcome }, durationMs / 1000);
    },
    leasesRecovered: (event) => {
      if (event.retried > 0) this.recoveries.add({ queue: event.queue, outcome: "retry" }, event.retried);
      if (event.dead > 0) this.recoveries.add({ queue: event.queue, outcome: "dead" }, event.dead);
    },
    wakeupsRepublished: (event) => this.republished.add({}, event.count),
  };

  /** Shows the run counters of these (queue, task) pairs as 0 until their first run, so rate() and sum() see them. */
  declareRuns(pairs: ReadonlyArray<{ queue: string; task: string }>): void {
    for (const labels of pairs) {
      this.started.touch(labels);
      for (const counter of Object.values(this.ended)) counter.touch(labels);
    }
  }

  /** Shows the cleaner's counters as 0 (lease recoveries for these queues) until they first count. */
  declareCleaner(queues: readonly string[]): void {
    this.republished.touch({});
    for (const queue of queues) for (const outcome of ["retry", "dead"]) this.recoveries.touch({ queue, outcome });
  }

  families(): MetricFamily[] {
    return [
      this.started.family(),
      ...Object.values(this.ended).map((counter) => counter.family()),
      this.processing.family(),
      this.waiting.family(),
      this.recoveries.family(),
      this.republished.family(),
    ];
  }
}

let processMetrics: TaskMetrics | undefined;

/** The metrics of this process, made at the first call. */
export function taskMetrics(): TaskMetrics {
  processMetrics ??= new TaskMetrics();
  return processMetrics;
}
