// SQL units of the dashboard's overview on SQLite: the workers seen recently, what is stuck and since when, and the
// tasks finished per minute over the last hour. Ages are computed from the database's clock.

import type { MinuteCounts, RecentWorker, StuckGroup, Throughput } from "../../../store/views.js";
import { NOW, nowPlus, toDate } from "../clock.js";
import type { Db } from "../../../store/db.js";
import { bind } from "../bind.js";
import type { SqliteTable } from "../table.js";
import { secondsBetween } from "./views.js";

/** Lease owners of running tasks and finishers (finished_by) of tasks finished in the last `windowSeconds`. */
export async function recentWorkers(db: Db, table: SqliteTable, windowSeconds: number, limit = 50): Promise<RecentWorker[]> {
  const rows = await db.query<{ worker: string; running: number; expired: number; finished: number; last_seen: unknown; now: unknown }>(
    ...bind(
      `SELECT worker,
            sum(status = 'running') AS running,
            sum(status = 'running' AND lease_expires_at < ${NOW}) AS expired,
            sum(status <> 'running') AS finished,
            max(seen) AS last_seen, ${NOW} AS now
     FROM (
       SELECT lease_owner AS worker, status, lease_expires_at, updated_at AS seen FROM ${table.sql} WHERE status = 'running'
       UNION ALL
       SELECT finished_by, status, NULL, finished_at FROM ${table.sql}
       WHERE status IN ('succeeded', 'dead', 'cancelled') AND finished_at > ${nowPlus("-{windowSeconds} * 1000")}
     )
     WHERE worker IS NOT NULL
     GROUP BY worker ORDER BY max(seen) DESC LIMIT {limit}`,
      { windowSeconds, limit },
    ),
  );
  return rows.map((row) => ({
    worker: row.worker,
    running: Number(row.running),
    expired: Number(row.expired),
    finished: Number(row.finished),
    lastSeen: toDate(row.last_seen),
    idleSeconds: secondsBetween(row.last_seen, row.now),
  }));
}

export async function stuckTasks(db: Db, table: SqliteTable, unpublishedGraceSeconds: number): Promise<StuckGroup[]> {
  const rows = await db.query<Record<string, unknown>>(
    ...bind(
      `SELECT queue, name,
            sum(status = 'running' AND lease_expires_at < ${NOW}) AS expired,
            min(CASE WHEN status = 'running' AND lease_expires_at < ${NOW} THEN lease_expires_at END) AS oldest_expired,
            sum(status = 'pending' AND run_at <= ${NOW}) AS due,
            min(CASE WHEN status = 'pending' AND run_at <= ${NOW} THEN run_at END) AS oldest_due,
            sum(status = 'pending' AND run_at > ${NOW}) AS scheduled,
            sum(status = 'pending' AND published_at IS NULL AND run_at < ${nowPlus("-{graceSeconds} * 1000")}) AS unpublished,
            sum(status = 'pending' AND attempts > 0) AS retrying,
            ${NOW} AS now
     FROM ${table.sql}
     WHERE status = 'pending' OR (status = 'running' AND lease_expires_at < ${NOW})
     GROUP BY queue, name ORDER BY queue, name`,
      { graceSeconds: unpublishedGraceSeconds },
    ),
  );
  return rows.map((row) => ({
    queue: row.queue as string,
    name: row.name as string,
    expired: Number(row.expired),
    oldestExpiredSeconds: secondsBetween(row.oldest_expired, row.now),
    due: Number(row.due),
    oldestDueSeconds: secondsBetween(row.oldest_due, row.now),
    scheduled: Number(row.scheduled),
    unpublished: Number(row.unpublished),
    retrying: Number(row.retrying),
  }));
}

export async function finishedPerMinute(db: Db, table: SqliteTable): Promise<Throughput> {
  const rows = await db.query<{ minute: string; queue: string; name: string; succeeded: number; dead: number; cancelled: number }>(
    `SELECT substr(finished_at, 1, 16) AS minute, queue, name,
            sum(status = 'succeeded') AS succeeded, sum(status = 'dead') AS dead, sum(status = 'cancelled') AS cancelled
     FROM ${table.sql}
     WHERE status IN ('succeeded', 'dead', 'cancelled') AND finished_at >= ${nowPlus("-3660000")}
     GROUP BY 1, 2, 3`,
    [],
  );
  const clock = await db.query<{ now: unknown }>(`SELECT ${NOW} AS now`, []);
  const last = Math.floor(toDate(clock[0]!.now).getTime() / 60_000) * 60;
  const minutes = new Map<number, MinuteCounts>();
  for (let m = last - 60 * 60; m <= last; m += 60) minutes.set(m, { minute: m, succeeded: 0, dead: 0, cancelled: 0 });
  const names = new Map<string, { queue: string; name: string; succeeded: number; dead: number }>();
  for (const row of rows) {
    const slot = minutes.get(Date.parse(`${row.minute}:00Z`) / 1000);
    if (slot) {
      slot.succeeded += Number(row.succeeded);
      slot.dead += Number(row.dead);
      slot.cancelled += Number(row.cancelled);
    }
    const key = `${row.queue}\u0000${row.name}`;
    const byName = names.get(key) ?? { queue: row.queue, name: row.name, succeeded: 0, dead: 0 };
    byName.succeeded += Number(row.succeeded);
    byName.dead += Number(row.dead);
    names.set(key, byName);
  }
  return { minutes: [...minutes.values()], byName: [...names.values()] };
}
