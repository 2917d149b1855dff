// A schedule's slots from its cron expression and time zone: 5 and 6 fields, the slot at the reference instant
// included, and the DST rule (a fixed time in the spring gap moves past it, one in the repeated hour fires once).

import { describe, expect, it } from "vitest";
import { CronSlots } from "../../src/schedules/cron-slots.js";

const iso = (dates: Date[]) => dates.map((date) => date.toISOString());

describe("CronSlots", () => {
  it("reads 5 fields at minute precision and 6 with seconds first; the slot at the reference instant counts", () => {
    const everyFive = new CronSlots("*/5 * * * *", "UTC");
    expect(iso(everyFive.latest(2, new Date("2026-01-01T00:10:00.000Z")))).toEqual(["2026-01-01T00:10:00.000Z", "2026-01-01T00:05:00.000Z"]);
    expect(iso(everyFive.latest(1, new Date("2026-01-01T00:09:59.999Z")))).toEqual(["2026-01-01T00:05:00.000Z"]);
    const everyTenSeconds = new CronSlots("*/10 * * * * *", "UTC");
    expect(everyTenSeconds.next(new Date("2026-01-01T00:00:00.000Z"))?.toISOString()).toBe("2026-01-01T00:00:10.000Z");
  });

  it("reads the expression in its time zone", () => {
    const paris = new CronSlots("0 3 * * *", "Europe/Paris");
    expect(paris.next(new Date("2026-01-10T12:00:00Z"))?.toISOString()).toBe("2026-01-11T02:00:00.000Z"); // CET, UTC+1
    expect(paris.next(new Date("2026-07-10T12:00:00Z"))?.toISOString()).toBe("2026-07-11T01:00:00.000Z"); // CEST, UTC+2
  });

  it("moves a fixed time that does not exist (the spring gap) to the first time after it", () => {
    // Europe/Berlin skips 02:00–03:00 on 2026-03-29: 02:30 runs at 03:00 CEST (01:00 UTC).
    const slots = new CronSlots("30 2 * * *", "Europe/Berlin");
    expect(iso(slots.latest(3, new Date("2026-03-30T12:00:00Z")))).toEqual(["2026-03-30T00:30:00.000Z", "2026-03-29T01:00:00.000Z", "2026-03-28T01:30:00.000Z"]);
  });

  it("fires a fixed time that occurs twice (the autumn repeat) once", () => {
    // Europe/Berlin repeats 02:00–03:00 on 2026-10-25: 02:30 happens at 00:30 UTC (CEST) and 01:30 UTC (CET).
    const slots = new CronSlots("30 2 * * *", "Europe/Berlin");
    expect(iso(slots.latest(3, new Date("2026-10-26T12:00:00Z")))).toEqual(["2026-10-26T01:30:00.000Z", "2026-10-25T00:30:00.000Z", "2026-10-24T00:30:00.000Z"]);
  });

  it("lets a wildcard-hour schedule follow elapsed time through the repeated hour", () => {
    const slots = new CronSlots("0 * * * *", "Europe/Berlin");
    const hours = iso(slots.latest(4, new Date("2026-10-25T02:00:00Z")));
    expect(hours).toEqual(["2026-10-25T02:00:00.000Z", "2026-10-25T01:00:00.000Z", "2026-10-25T00:00:00.000Z", "2026-10-24T23:00:00.000Z"]);
  });

  it("refuses 4 or 7 fields and a time zone that does not exist", () => {
    expect(() => new CronSlots("* * * *", "UTC")).toThrow(/five, six, or seven/);
    expect(() => new CronSlots("* * * * * * *", "UTC")).toThrow(/5 or 6 parts/);
    expect(() => new CronSlots("* * * * *", "Mars/Olympus")).toThrow(/Mars\/Olympus/);
  });
});
