// The queue controls as `task-runner status` shows them: each queue's row (paused since when, the limits its workers
// declared) and the tasks with a concurrency limit in the config.

import type { TaskRegistry } from "../define-tasks.js";
import { queueRows } from "../store/queue-rows.js";
import type { Store } from "../store/store.js";

/** One queue with a row: paused or not, and its declared limits. */
export interface QueueLine {
  queue: string;
  paused: boolean;
  pausedSince: string | null;
  concurrency: number | null;
  rateLimit: { starts: number; perMs: number } | null;
  /** The config's tasks of this queue with a concurrency limit, per key or not. */
  tasks: Array<{ name: string; limit: number; perKey: boolean }>;
}

/** The queues' rows and the config's limited tasks; no row read on a database without the queue table (not migrated yet). */
export async function queueReport(tasks: TaskRegistry | undefined, store: Store): Promise<QueueLine[]> {
  const rows = await queueRows(store);
  const limited = Object.entries(tasks ?? {}).flatMap(([name, definition]) =>
    definition.concurrency ? [{ queue: definition.queue ?? "default", name, limit: definition.concurrency.limit, perKey: definition.concurrency.key !== undefined }] : [],
  );
  const queues = new Set([...rows.map((row) => row.queue), ...limited.map((task) => task.queue)]);
  return [...queues].sort().map((queue): QueueLine => {
    const row = rows.find((candidate) => candidate.queue === queue);
    return {
      queue,
      paused: row?.pausedAt != null,
      pausedSince: row?.pausedAt?.toISOString() ?? null,
      concurrency: row?.concurrency ?? null,
      rateLimit: row?.rateLimit ?? null,
      tasks: limited.filter((task) => task.queue === queue).map(({ name, limit, perKey }) => ({ name, limit, perKey })),
    };
  });
}

export function renderQueues(lines: readonly QueueLine[]): string[] {
  if (lines.length === 0) return [];
  const out = ["", "Queue controls:"];
  for (const line of lines) {
    const parts = [line.paused ? `PAUSED since ${line.pausedSince}` : "running"];
    if (line.concurrency !== null) parts.push(`at most ${line.concurrency} running`);
    if (line.rateLimit) parts.push(`at most ${line.rateLimit.starts} starts per ${line.rateLimit.perMs} ms`);
    for (const task of line.tasks) parts.push(`${task.name}: at most ${task.limit} running${task.perKey ? " per key" : ""}`);
    out.push(`  ${line.queue}: ${parts.join("; ")}`);
  }
  return out;
}
