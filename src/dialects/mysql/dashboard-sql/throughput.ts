// SQL unit: tasks finished per minute over the last hour, by outcome, for the overview chart.
// Reads the finished_at index over one hour, so its cost follows the last hour's throughput, not the table size.

import type { MinuteCounts, Throughput } from "../../../store/views.js";
import type { CountingDb } from "../../../store/db.js";
import type { MysqlTable } from "../table.js";
import { NOW, num } from "../sql/values.js";

/** Unix seconds of the start of the minute of a DATETIME (read as UTC: no time zone enters). */
function unixMinute(expression: string): string {
  return `FLOOR(TIMESTAMPDIFF(SECOND, '1970-01-01 00:00:00', ${expression}) / 60) * 60`;
}

/** Finished tasks per minute over the last 60 minutes, by the database's clock. */
export async function finishedPerMinute(db: CountingDb, table: MysqlTable): Promise<Throughput> {
  const since = `CAST(DATE_FORMAT(${NOW}, '%Y-%m-%d %H:%i:00') AS DATETIME(6)) - INTERVAL 60 MINUTE`;
  const rowsQuery = db.query<{ minute: unknown; queue: string; name: string; succeeded: unknown; dead: unknown; cancelled: unknown }>(
    `SELECT ${unixMinute("finished_at")} AS minute, queue, name,
            SUM(status = 'succeeded') AS succeeded, SUM(status = 'dead') AS dead, SUM(status = 'cancelled') AS cancelled
     FROM ${table.sql}
     WHERE finished_at >= ${since} AND status IN ('succeeded', 'dead', 'cancelled')
     GROUP BY minute, queue, name`,
    [],
  );
  const clockQuery = db.query<{ minute: unknown }>(`SELECT ${unixMinute(NOW)} AS minute`, []);
  const [rows, clock] = await Promise.all([rowsQuery, clockQuery]);
  const last = clock[0] ? num(clock[0].minute) : Math.floor(Date.now() / 60_000) * 60;
  const minutes = new Map<number, MinuteCounts>();
  for (let m = last - 60 * 60; m <= last; m += 60) minutes.set(m, { minute: m, succeeded: 0, dead: 0, cancelled: 0 });
  const names = new Map<string, { queue: string; name: string; succeeded: number; dead: number }>();
  for (const row of rows) {
    const succeeded = num(row.succeeded);
    const dead = num(row.dead);
    const slot = minutes.get(num(row.minute));
    if (slot) {
      slot.succeeded += succeeded;
      slot.dead += dead;
      slot.cancelled += num(row.cancelled);
    }
    const key = `${row.queue}\u0000${row.name}`;
    const byName = names.get(key) ?? { queue: row.queue, name: row.name, succeeded: 0, dead: 0 };
    byName.succeeded += succeeded;
    byName.dead += dead;
    names.set(key, byName);
  }
  return { minutes: [...minutes.values()], byName: [...names.values()] };
}
