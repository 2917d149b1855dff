// A schedule's slot times, read from its cron expression in its time zone (croner does the calendar and the DST
// arithmetic). Pure: the caller passes the time to read from, the database's clock in the cleaner.

import { Cron } from "croner";

/**
 * The slots of one cron expression. 5 fields (minute, hour, day of month, month, day of week) or 6 (seconds first).
 * DST: a slot at a fixed wall-clock time (no wildcard or step in its second, minute and hour fields) that falls in
 * the hour skipped in spring runs at the first time after the gap, and one that occurs twice in autumn runs once; a
 * schedule with a wildcard or step there follows elapsed time: its slots in a skipped hour do not exist, and in a
 * repeated hour it has the slots of both passes.
 */
export class CronSlots {
  private readonly cron: Cron;

  /** Throws croner's own message for an expression or time zone it cannot read. */
  constructor(
    readonly expression: string,
    readonly timeZone: string,
  ) {
    this.cron = new Cron(expression, { paused: true, timezone: timeZone, mode: "5-or-6-parts", fixedTimeRule: "no-wildcard" });
    // croner reads the time zone only when it computes a time: compute one now, so a bad zone throws here.
    this.cron.nextRun(new Date(0));
  }

  /** The latest `count` slots at or before `at`, the most recent first. */
  latest(count: number, at: Date): Date[] {
    return this.cron.previousRuns(count, new Date(at.getTime() + 1));
  }

  /** The first slot after `at`, or null when the expression has none (a date that never comes). */
  next(at: Date): Date | null {
    return this.cron.nextRun(at);
  }
}
