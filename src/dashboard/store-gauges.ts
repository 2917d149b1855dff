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
  return [
    {
      name: `${METRIC_PREFIX}tasks`,
      help: "Tasks in the table by queue and status (exact up to the dashboard's exactCountLimit per queue and name, estimated beyond).",
      type: "gauge",
      samples: queues.flatMap((queue) =>
        TASK_STATUSES.map((status) => ({ labels: { queue, status }, value: sum(counts, queue, (row) => (row.status === status ? row.count : 0)) })),
      ),
    },
    {
      name: `${METRIC_PREFIX}tasks_due`,
      help: "Pending tasks that are due now (the backlog waiting for a worker).",
      type: "gauge",
      samples: perQueue((queue) => sum(stuck, queue, (row) => row.due)),
    },
    {
      name: `${METRIC_PREFIX}oldest_due_task_age_seconds`,
      help: "Seconds since the oldest due pending task became due (0 when none is due), by the database's clock.",
      type: "gauge",
      samples: perQueue((queue) => max(stuck, queue, (row) => row.oldestDueSeconds)),
    },
    {
      name: `${METRIC_PREFIX}expired_leases`,
      help: "Running tasks whose lease expired: their worker died or stalled, and the cleaner has not recovered them yet.",
      type: "gauge",
      samples: perQueue((queue) => sum(stuck, queue, (row) => row.expired)),
    },
    {
      name: `${METRIC_PREFIX}queue_paused`,
      help: "1 while the queue is paused (task-runner pause), else 0.",
      type: "gauge",
      samples: perQueue((queue) => (paused.has(queue) ? 1 : 0)),
    },
  ];
}
