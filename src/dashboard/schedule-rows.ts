// The recurring schedules the overview lists: each row of the schedule table with its next slot, read from its stored
// expression after the database's clock. A database whose schema predates schedules has none to show.

import { CronSlots } from "../schedules/cron-slots.js";
import type { Store } from "../store/store.js";

export interface ScheduleRow {
  schedule: string;
  cron: string;
  timeZone: string;
  lastSlot: Date;
  /** Null when the stored expression has no later slot or can no longer be read. */
  nextSlot: Date | null;
}

export async function scheduleRows(store: Store, now: Date): Promise<ScheduleRow[]> {
  let states;
  try {
    states = await store.listSchedules();
  } catch (error) {
    if (store.classify(error).kind === "missing-table") return [];
    throw error;
  }
  return states.map((state) => ({
    schedule: state.schedule,
    cron: state.cron,
    timeZone: state.timeZone,
    lastSlot: state.lastSlot,
    nextSlot: nextSlot(state.cron, state.timeZone, state.lastSlot > now ? state.lastSlot : now),
  }));
}

function nextSlot(cron: string, timeZone: string, after: Date): Date | null {
  try {
    return new CronSlots(cron, timeZone).next(after);
  } catch {
    return null;
  }
}
