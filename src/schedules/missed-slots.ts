// Which of a schedule's slots fire at a sweep, and how far its last slot moves: every slot since the last one that is
// still on time fires; the slots missed while no cleaner led are skipped, or the latest fires, or each within a window.

import type { CronSlots } from "./cron-slots.js";

/** What happens to slots that passed while no cleaner could fire them (after downtime, a deploy, an outage). */
export type MissedSlotsPolicy =
  /** Skip them: the schedule goes on with its next slot. */
  | "skip"
  /** Fire the latest one only, once. */
  | "latest"
  /** Fire each missed slot of the last `withinMs`, the most recent `max` of them (default 10), oldest first. */
  | { withinMs: number; max?: number };

export interface SlotPlan {
  /** Slots to fire now, oldest first. */
  fire: Date[];
  /** The schedule's new last slot (every slot at or before it is done), or null when nothing is due. */
  advanceTo: Date | null;
}

export const DEFAULT_CATCH_UP_MAX = 10;

/**
 * The plan for one schedule: its slots in (lastSlot, now], where a slot is on time when it is at most `onTimeMs` old
 * and missed when older. `now` is the database's clock.
 */
export function planSlots(slots: CronSlots, lastSlot: Date, now: Date, policy: MissedSlotsPolicy, onTimeMs: number): SlotPlan {
  const catchUp = typeof policy === "object" ? policy : undefined;
  const catchUpMax = catchUp ? (catchUp.max ?? DEFAULT_CATCH_UP_MAX) : 0;
  // At most one slot a second: the on-time window holds at most onTimeMs / 1000 + 1 of them.
  const wanted = Math.ceil(onTimeMs / 1000) + 1 + catchUpMax;
  const due = slots.latest(wanted, now).filter((slot) => slot.getTime() > lastSlot.getTime());
  if (due.length === 0) return { fire: [], advanceTo: null };
  const onTimeFrom = now.getTime() - onTimeMs;
  const onTime = due.filter((slot) => slot.getTime() >= onTimeFrom);
  const missed = due.filter((slot) => slot.getTime() < onTimeFrom);
  let fire = onTime;
  if (policy === "latest" && onTime.length === 0) fire = missed.slice(0, 1);
  if (catchUp) {
    const windowFrom = now.getTime() - catchUp.withinMs;
    fire = [...onTime, ...missed.filter((slot) => slot.getTime() >= windowFrom).slice(0, catchUpMax)];
  }
  return { fire: fire.reverse(), advanceTo: due[0]! };
}
