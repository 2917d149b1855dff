import { TaskQueueInternalError } from "../../../errors.js";
// How values cross the MySQL drivers, the same way through the mariadb pool and through Prisma: times travel as UTC
// text (never as Date objects, which a driver would shift by its time zone), numbers are coerced from whatever integer
// or decimal type a driver chose, and id lists become one placeholder per id.

/** DATE_FORMAT pattern of a DATETIME(6) as text: "2026-11-21 08:35:10.123456". */
const TEXT_FORMAT = "'%Y-%m-%d %H:%i:%s.%f'";

/** SQL for `expression` (a DATETIME) as UTC text, so no driver converts it by a time zone. */
export function timeText(expression: string): string {
  return `DATE_FORMAT(${expression}, ${TEXT_FORMAT})`;
}

/** The database's clock, to microseconds: UTC whatever the session's time_zone. Constant within one statement. */
export const NOW = "UTC_TIMESTAMP(6)";

/** `NOW` plus a number of milliseconds given as the placeholder `?` (or any SQL expression). */
export function nowPlusMs(ms = "?"): string {
  return `${NOW} + INTERVAL (${ms}) * 1000 MICROSECOND`;
}

/** `NOW` minus a number of milliseconds given as the placeholder `?`. */
export function nowMinusMs(ms = "?"): string {
  return `${NOW} - INTERVAL (${ms}) * 1000 MICROSECOND`;
}

/** A Date as DATETIME text in UTC ("2026-11-21 08:35:10.123"), for a parameter. */
export function toTimeText(date: Date): string {
  return date.toISOString().slice(0, 23).replace("T", " ");
}

/** Parses the text of timeText() (or a Date a driver made anyway) as UTC. Milliseconds; microseconds are dropped. */
export function fromTimeText(value: string | Date): Date {
  if (value instanceof Date) return value;
  const match = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?/.exec(value);
  if (!match) throw new TaskQueueInternalError(`the database returned ${JSON.stringify(value)} where a DATETIME text belongs`);
  const [, y, mo, d, h, mi, s, fraction = "0"] = match;
  const ms = Math.floor(Number(fraction.padEnd(6, "0")) / 1000);
  return new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms));
}

/** fromTimeText, keeping null. */
export function fromNullableTimeText(value: string | Date | null): Date | null {
  return value === null ? null : fromTimeText(value);
}

/** A count, sum or flag as a JS number, whichever type the driver returned (number, bigint, decimal string). */
export function num(value: unknown): number {
  if (value === null || value === undefined) return 0;
  return typeof value === "number" ? value : Number(value);
}

/** A SQL boolean (1/0 as number, bigint or string) as a JS boolean. */
export function flag(value: unknown): boolean {
  return value === true || num(value) === 1;
}

/** "?, ?, ?" for `count` placeholders (at least one: `IN ()` is not SQL, and no id matches NULL). */
export function placeholders(count: number): string {
  return count === 0 ? "NULL" : new Array<string>(count).fill("?").join(", ");
}

/** A JSON column selected as text: CAST keeps drivers from parsing it (the mariadb driver would, Prisma too). */
export function jsonText(column: string): string {
  return `CAST(${column} AS CHAR)`;
}

/** Parses a JSON column's text; null stays null (SQL NULL: no value, as for a task without a result). */
export function parseJson(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (Buffer.isBuffer(value)) return JSON.parse(value.toString("utf8"));
  return typeof value === "string" ? JSON.parse(value) : value;
}
