// A worker holds one run of a task at a time; when a task is claimed again while an earlier run of it is still in
// hand, only the latest run (the highest attempt) may extend or give back the lease.

import type { TaskRun } from "./task-run.js";

/** Of several runs of one task in hand, the latest (highest attempt): the only one that can still hold its lease. */
export function latestRuns(runs: Iterable<TaskRun>): TaskRun[] {
  const latest = new Map<string, TaskRun>();
  for (const run of runs) {
    const other = latest.get(run.task.id);
    if (!other || other.task.attempts < run.task.attempts) latest.set(run.task.id, run);
  }
  return [...latest.values()];
}
