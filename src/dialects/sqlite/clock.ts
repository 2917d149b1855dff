// Times in the SQLite dialect's SQL: ISO 8601 text in UTC with milliseconds and "+00:00", the format
// @prisma/adapter-better-sqlite3 writes by default, so that comparing two times as text compares the instants.

import type { Db } from "../../store/db.js";

/** The database's clock now, in the stored format. */
export const NOW = `strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')`;

/** The database's clock plus `ms` milliseconds (an SQL expression or parameter), in the stored format. */
export function nowPlus(ms: string): string {
  return `strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now', printf('%+.3f seconds', (${ms}) / 1000.0))`;
}

/** A JavaScript time in the stored format. */
export function storedTime(date: Date): string {
  return date.toISOString().replace("Z", "+00:00");
}

/** A stored time (text; a Date when Prisma parsed it) as a Date. */
export function toDate(value: unknown): Date {
  return value instanceof Date ? value : new Date(value as string);
}

/** A nullable stored time as a Date or null. */
export function toNullableDate(value: unknown): Date | null {
  return value === null || value === undefined ? null : toDate(value);
}

/** The database's clock, read. */
export async function now(db: Db): Promise<Date> {
  const rows = await db.query<{ now: unknown }>(`SELECT ${NOW} AS now`, []);
  return toDate(rows[0]!.now);
}
