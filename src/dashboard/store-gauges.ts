// The database-wide gauges of the dashboard's /metrics, read from the store at scrape time with the overview's own
// operations: tasks by queue and status, due tasks and the oldest one's age, expired leases, paused queues.

import { METRIC_PREFIX } from "../metrics/task-metrics.js";
import type { MetricFamily, Sample } from "../metrics/exposition.js";
import { queueRows } from "../store/queue-rows.js";
import { TASK_STATUSES } from "../store/task-status.js";
import type { DashboardContext } from "./dashboard-context.js";

export async function storeGauges(context: DashboardContext): Promise<MetricFamily[]> {
  const { store, settings } = context;
  const browse = await context.browseIndex();
  const groups = browse ? await store.listTaskGroups() : undefined;
  const [counts, stuck, queueStates] = await Promise.all([
    store.countGroups({ groups, exactLimit: settings.exactCountLimit }),
    store.stuckTasks(settings.unpublishedGraceSeconds),
    queueRows(store),
  ]);
  // Every queue the table or the queue rows know gets every series, zeros included, so a query never finds nothing.
  const queues = [...new Set([...counts.map((row) => row.queue), ...stuck.map((row) => row.queue), ...queueStates.map((row) => row.queue)])].sort();
  const perQueue = (value: (queue: string) => number): Sample[] => queues.map((queue) => ({ labels: { queue }, value: value(queue) }));
  const sum = <T extends { queue: string }>(rows: readonly T[], queue: string, of: (row: T) => number) =>
    rows.reduce((total, row) => (row.queue === queue ? total + of(row) : total), 0);
  const max = <T extends { queue: string }>(rows: readonly T[], queue: string, of: (row: T) => number) =>
    rows.reduce((most, row) => (row.queue === queue ? Math.max(most, of(row)) : most), 0);
  const paused = new Set(queueStates.filter((row) => row.pausedAt !== null).map((row) => row.queue));
  const gauge = (name: string, help: string, samples: Sample[]): MetricFamily => ({ name: `${METRIC_PREFIX}${name}`, help, type: "gauge", samples });
  return [
    gauge(
      "tasks",
      "Tasks in the table by queue and status (exact up to the dashboard's exactCountLimit per queue and name, estimated beyond).",
      queues.flatMap((queue) =>
        TASK_STATUSES.map((status) => ({ labels: { queue, status }, value: sum(counts, queue, (row) => (row.status === status ? row.count : 0)) })),
      ),
    ),
    gauge(
      "tasks_due",
      "Pending tasks that are due now (the backlog waiting for a worker).",
      perQueue((queue) => sum(stuck, queue, (row) => row.due)),
    ),
    gauge(
      "oldest_due_task_age_seconds",
      "Seconds since the oldest due pending task became due (0 when none is due), by the database's clock.",
      perQueue((queue) => max(stuck, queue, (row) => row.oldestDueSeconds)),
    ),
    gauge(
      "expired_leases",
      "Running tasks whose lease expired: their worker died or stalled, and the cleaner has not recovered them yet.",
      perQueue((queue) => sum(stuck, queue, (row) => row.expired)),
    ),
    gauge(
      "queue_paused",
      "1 while the queue is paused (task-runner pause), else 0.",
      perQueue((queue) => (paused.has(queue) ? 1 : 0)),
    ),
  ];
}
