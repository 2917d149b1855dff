// Which slots fire at a sweep: every on-time slot since the last one, and after downtime what the schedule's policy
// says (skip, the latest, each within a window up to a cap); the last slot always moves to the latest due one.

import { describe, expect, it } from "vitest";
import { CronSlots } from "../../src/schedules/cron-slots.js";
import { planSlots, type MissedSlotsPolicy } from "../../src/schedules/missed-slots.js";

const minutely = new CronSlots("* * * * *", "UTC");
const at = (text: string) => new Date(`2026-01-01T${text}Z`);
const plan = (last: string, now: string, policy: MissedSlotsPolicy, onTimeMs = 60_000) => {
  const result = planSlots(minutely, at(last), at(now), policy, onTimeMs);
  return { fire: result.fire.map((slot) => slot.toISOString().slice(11, 19)), advanceTo: result.advanceTo?.toISOString().slice(11, 19) ?? null };
};

describe("planSlots", () => {
  it("fires nothing before the next slot, and the slot itself once it is due", () => {
    expect(plan("10:00:00", "10:00:59.999", "skip")).toEqual({ fire: [], advanceTo: null });
    expect(plan("10:00:00", "10:01:00", "skip")).toEqual({ fire: ["10:01:00"], advanceTo: "10:01:00" });
    expect(plan("10:00:00", "10:01:30", "latest")).toEqual({ fire: ["10:01:00"], advanceTo: "10:01:00" });
  });

  it("never fires a slot at or before the last one", () => {
    expect(plan("10:01:00", "10:01:30", "skip")).toEqual({ fire: [], advanceTo: null });
  });

  it("skip: after downtime fires only the slots still on time, and moves past the missed ones", () => {
    expect(plan("10:00:00", "11:00:30", "skip")).toEqual({ fire: ["11:00:00"], advanceTo: "11:00:00" });
    expect(plan("10:00:00", "11:01:30.001", "skip", 30_000)).toEqual({ fire: [], advanceTo: "11:01:00" });
  });

  it("latest: fires the most recent missed slot once when none is on time", () => {
    expect(plan("10:00:00", "11:01:30", "latest", 30_000)).toEqual({ fire: ["11:01:00"], advanceTo: "11:01:00" });
    expect(plan("10:00:00", "11:01:10", "latest", 30_000)).toEqual({ fire: ["11:01:00"], advanceTo: "11:01:00" });
  });

  it("catch-up: fires each missed slot within the window, the most recent `max`, oldest first", () => {
    expect(plan("10:00:00", "10:05:30", { withinMs: 3 * 60_000 + 20_000 }, 1_000)).toEqual({
      fire: ["10:03:00", "10:04:00", "10:05:00"],
      advanceTo: "10:05:00",
    });
    expect(plan("10:00:00", "10:05:30", { withinMs: 3_600_000, max: 2 }, 1_000)).toEqual({ fire: ["10:04:00", "10:05:00"], advanceTo: "10:05:00" });
    expect(plan("10:03:30", "10:05:30", { withinMs: 3_600_000, max: 10 }, 1_000)).toEqual({ fire: ["10:04:00", "10:05:00"], advanceTo: "10:05:00" });
  });

  it("catch-up: the on-time slots fire whatever the cap", () => {
    const everySecond = new CronSlots("* * * * * *", "UTC");
    const result = planSlots(everySecond, at("10:00:00"), at("10:00:05"), { withinMs: 60_000, max: 1 }, 60_000);
    expect(result.fire).toHaveLength(5);
  });
});
