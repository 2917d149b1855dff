// SQL unit: tasks finished per minute over the last hour, by outcome, for the overview chart.
// Reads the finished-tasks index over one hour, so its cost follows the last hour's throughput, not the table size.

import type { Db } from "../../../store/db.js";
import type { PgTable } from "../table.js";
import type { MinuteCounts, Throughput } from "../../../store/views.js";

/** Finished tasks per minute over the last 60 minutes, by the database's clock. */
export async function finishedPerMinute(db: Db, table: PgTable): Promise<Throughput> {
  const rowsQuery = db.query<{ minute: number; queue: string; name: string; succeeded: number; dead: number; cancelled: number }>(
    `SELECT extract(epoch FROM date_trunc('minute', finished_at))::float8 AS minute, queue, name,
            count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded,
            count(*) FILTER (WHERE status = 'dead')::int AS dead,
            count(*) FILTER (WHERE status = 'cancelled')::int AS cancelled
     FROM ${table.sql}
     WHERE status IN ('succeeded', 'dead', 'cancelled') AND finished_at >= date_trunc('minute', now()) - interval '60 minutes'
     GROUP BY 1, 2, 3`,
    [],
  );
  const clockQuery = db.query<{ minute: number }>(`SELECT extract(epoch FROM date_trunc('minute', now()))::float8 AS minute`, []);
  const [rows, clock] = await Promise.all([rowsQuery, clockQuery]);
  const last = clock[0]?.minute ?? Math.floor(Date.now() / 60_000) * 60;
  const minutes = new Map<number, MinuteCounts>();
  for (let m = last - 60 * 60; m <= last; m += 60) minutes.set(m, { minute: m, succeeded: 0, dead: 0, cancelled: 0 });
  const names = new Map<string, { queue: string; name: string; succeeded: number; dead: number }>();
  for (const row of rows) {
    const slot = minutes.get(row.minute);
    if (slot) {
      slot.succeeded += row.succeeded;
      slot.dead += row.dead;
      slot.cancelled += row.cancelled;
    }
    const key = `${row.queue}\u0000${row.name}`;
    const byName = names.get(key) ?? { queue: row.queue, name: row.name, succeeded: 0, dead: 0 };
    byName.succeeded += row.succeeded;
    byName.dead += row.dead;
    names.set(key, byName);
  }
  return { minutes: [...minutes.values()], byName: [...names.values()] };
}
