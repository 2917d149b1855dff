// The soak's verdict on recurring tasks, read from the slot table, the schedules table, the task rows and the run
// log: one task per slot, each of them run, and no slot missing between a schedule's first and last slot.

import { CronSlots } from "../../src/schedules/cron-slots.js";
import type { SoakDatabase } from "./soak-database.js";
import type { Run } from "./soak-runlog.js";

export interface ScheduleFindings {
  /** Slot rows in the slot table. */
  slotsFired: number;
  /** Each slot's task id → its task name: the tasks the cleaners created, beside the load's. */
  slotTasks: Map<string, string>;
  /** Names of the tasks that have a schedule. */
  scheduledNames: Set<string>;
}

type TaskRow = { id: string; name: string; status: string };

/**
 * Checks the schedules' slots. `flag` records a violation naming a task id; `report` one naming none.
 *
 * No gap is allowed at all: a slot is passed over (missed policy "skip") only when it is more than 60 s old when a
 * leader first sees it, and the soak never leaves its cleaners leaderless that long (two cleaners run; a killed one is
 * replaced at once and the other takes the lead within a few seconds). A soak that did leave them leaderless that long
 * would have to record it and excuse the gap it covers.
 */
export async function checkSchedules(
  db: Pick<SoakDatabase, "prisma">,
  tasks: ReadonlyMap<string, TaskRow>,
  runs: ReadonlyMap<string, Run[]>,
  flag: (id: string, text: string) => void,
  report: (text: string) => void,
): Promise<ScheduleFindings> {
  const schedules = await db.prisma.taskSchedule.findMany({ orderBy: { schedule: "asc" } });
  const slots = await db.prisma.taskScheduleSlot.findMany({ orderBy: [{ schedule: "asc" }, { slot: "asc" }] });
  const taskNameOf = new Map(schedules.map((row) => [row.schedule, row.taskName]));
  const scheduledNames = new Set(taskNameOf.values());
  const slotTasks = new Map<string, string>();
  const slotOf = new Map<string, string>();

  // 1. One task per slot: each slot row names a task no other slot names, of the schedule's task, that ran and
  //    succeeded; no task of a scheduled name exists without its slot (a second task for a slot would be one).
  for (const row of slots) {
    const where = `slot ${row.slot.toISOString()} of ${row.schedule}`;
    const other = slotOf.get(row.taskId);
    if (other) {
      flag(row.taskId, `task ${row.taskId} is the task of ${where} and of ${other}`);
      continue;
    }
    slotOf.set(row.taskId, where);
    const name = taskNameOf.get(row.schedule);
    if (!name) {
      report(`${where} has no schedule row`);
      continue;
    }
    slotTasks.set(row.taskId, name);
    const task = tasks.get(row.taskId);
    if (!task) flag(row.taskId, `task ${row.taskId} of ${where} has no row`);
    else if (task.name !== name) flag(row.taskId, `task ${row.taskId} of ${where} is a ${task.name} task, not ${name}`);
    else if (task.status !== "succeeded") flag(row.taskId, `task ${row.taskId} of ${where} ended ${task.status}, not succeeded`);
    if (!runs.has(row.taskId)) flag(row.taskId, `task ${row.taskId} of ${where} never ran`);
  }
  for (const task of tasks.values()) {
    if (scheduledNames.has(task.name) && !slotOf.has(task.id))
      flag(task.id, `task ${task.id} (${task.name}) has no slot row: a second task for a slot, or one no firing created`);
  }

  // 2. No missed slot: from a schedule's first slot row to its last slot, every slot of its expression has a row.
  for (const schedule of schedules) {
    const times = slots.filter((row) => row.schedule === schedule.schedule).map((row) => row.slot);
    if (times.length === 0) continue;
    const cron = new CronSlots(schedule.cron, schedule.timeZone);
    const missing: Date[] = [];
    for (const time of times)
      if (cron.latest(1, time)[0]?.getTime() !== time.getTime()) report(`${schedule.schedule} fired ${time.toISOString()}, not a slot of "${schedule.cron}"`);
    const end = Math.max(schedule.lastSlot.getTime(), times.at(-1)!.getTime());
    const fired = new Set(times.map((time) => time.getTime()));
    for (let slot = cron.next(times[0]!); slot && slot.getTime() <= end; slot = cron.next(slot)) if (!fired.has(slot.getTime())) missing.push(slot);
    if (missing.length > 0) {
      const shown = missing.slice(0, 5).map((slot) => slot.toISOString());
      report(`${schedule.schedule} missed ${missing.length} slots between its first and last (${shown.join(", ")}${missing.length > 5 ? ", …" : ""})`);
    }
  }
  return { slotsFired: slots.length, slotTasks, scheduledNames };
}
