// SQL units of the cleaners' leader lease on SQLite: one row per lock in the "<table>_leaders" table. A contender
// takes the row when it is free or expired, the holder renews it every heartbeat, and a holder that stops renewing
// loses it when it expires. One statement each, so two contenders can never both win.

import type { LeaderInfo } from "../../../store/leader-lock.js";
import { NOW, nowPlus, toDate } from "../clock.js";
import type { Db } from "../../../store/db.js";
import { bind } from "../bind.js";
import type { SqliteTable } from "../table.js";

/** Takes (or renews) the lease `name` for `holder` until ttlMs from now; true when `holder` holds it afterwards. */
export async function takeLease(db: Db, table: SqliteTable, name: string, holder: string, ttlMs: number): Promise<boolean> {
  const rows = await db.query<{ holder: string }>(
    ...bind(
      `INSERT INTO ${table.leaders} (name, holder, elected_at, expires_at) VALUES ({name}, {holder}, ${NOW}, ${nowPlus("{ttlMs}")})
     ON CONFLICT (name) DO UPDATE SET
       holder = excluded.holder,
       elected_at = CASE WHEN holder = excluded.holder THEN elected_at ELSE excluded.elected_at END,
       expires_at = excluded.expires_at
     WHERE holder = excluded.holder OR expires_at < ${NOW}
     RETURNING holder`,
      { name, holder, ttlMs: Math.round(ttlMs) },
    ),
  );
  return rows[0]?.holder === holder;
}

/** Gives the lease up, when `holder` holds it. */
export async function dropLease(db: Db, table: SqliteTable, name: string, holder: string): Promise<void> {
  await db.query(...bind(`DELETE FROM ${table.leaders} WHERE name = {name} AND holder = {holder}`, { name, holder }));
}

/** Who holds the lease now (unexpired), or undefined. */
export async function leaseHolder(db: Db, table: SqliteTable, name: string): Promise<LeaderInfo | undefined> {
  const rows = await db.query<{ holder: string; elected_at: unknown }>(
    ...bind(`SELECT holder, elected_at FROM ${table.leaders} WHERE name = {name} AND expires_at >= ${NOW}`, { name }),
  );
  const row = rows[0];
  if (!row) return undefined;
  const pid = /:(\d+):/.exec(row.holder)?.[1];
  return { pid: pid === undefined ? null : Number(pid), pidOf: "process", holder: row.holder, clientAddr: null, since: toDate(row.elected_at) };
}
