// The recurring schedules in `task-runner status`: each one the config declares or the database remembers, with its
// last slot (from the database) and its next one (from its expression, after the database's clock).

import type { TaskRegistry } from "../define-tasks.js";
import { registrySchedules } from "../schedules/task-schedule.js";
import type { Store } from "../store/store.js";

export interface ScheduleLine {
  schedule: string;
  task: string;
  cron: string;
  timeZone: string;
  /** The latest slot fired or passed over, null when no cleaner has led since it was declared. */
  lastSlot: string | null;
  /** The next slot to fire, null for a schedule the code no longer declares. */
  nextSlot: string | null;
  /** False for a row of a schedule removed from the code: it no longer fires. */
  declared: boolean;
}

/** The schedules, or [] when the config declares none (so a database without the schedule tables is not read). */
export async function scheduleReport(tasks: TaskRegistry | undefined, store: Store): Promise<ScheduleLine[]> {
  const declared = tasks ? registrySchedules(tasks) : [];
  if (declared.length === 0) return [];
  const [rows, now] = await Promise.all([store.listSchedules(), store.now()]);
  const stored = new Map(rows.map((row) => [row.schedule, row]));
  const lines: ScheduleLine[] = declared.map((schedule) => {
    const row = stored.get(schedule.id);
    const after = row && row.lastSlot > now ? row.lastSlot : now;
    return {
      schedule: schedule.id,
      task: schedule.taskName,
      cron: schedule.cron,
      timeZone: schedule.timeZone,
      lastSlot: row?.lastSlot.toISOString() ?? null,
      nextSlot: schedule.slots.next(after)?.toISOString() ?? null,
      declared: true,
    };
  });
  for (const row of rows) {
    if (declared.some((schedule) => schedule.id === row.schedule)) continue;
    lines.push({
      schedule: row.schedule,
      task: row.taskName,
      cron: row.cron,
      timeZone: row.timeZone,
      lastSlot: row.lastSlot.toISOString(),
      nextSlot: null,
      declared: false,
    });
  }
  return lines;
}

/** The schedules as a table (none: no lines). */
export function renderSchedules(lines: readonly ScheduleLine[]): string[] {
  if (lines.length === 0) return [];
  const header = ["SCHEDULE", "CRON", "TIME ZONE", "LAST SLOT", "NEXT SLOT"];
  const body = lines.map((line) => [
    line.schedule,
    line.cron,
    line.timeZone,
    line.lastSlot ?? "none yet",
    line.declared ? (line.nextSlot ?? "never") : "not declared in the code: does not fire",
  ]);
  const rows = [header, ...body];
  const widths = header.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return [
    "",
    "Schedules:",
    ...rows.map(
      (row) =>
        `  ${row
          .map((cell, column) => cell.padEnd(widths[column]!))
          .join("  ")
          .trimEnd()}`,
    ),
  ];
}
