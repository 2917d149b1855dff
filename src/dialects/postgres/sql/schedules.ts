// SQL units of recurring tasks on PostgreSQL: the schedules' rows (last_slot never moves back) and the fired slots,
// whose primary key (schedule, slot) refuses a second firing. Times are read as epoch milliseconds, written as ISO text.

import type { Db } from "../../../store/db.js";
import { distinctDeclarations, type ScheduleDeclaration, type ScheduleState } from "../../../store/schedules.js";
import type { PgTable } from "../table.js";

interface ScheduleRow {
  schedule: string;
  taskName: string;
  cron: string;
  timeZone: string;
  lastSlotMs: number;
  updatedAtMs: number;
}

const COLUMNS = `schedule, task_name AS "taskName", cron, time_zone AS "timeZone",
  (extract(epoch FROM last_slot) * 1000)::float8 AS "lastSlotMs", (extract(epoch FROM updated_at) * 1000)::float8 AS "updatedAtMs"`;

function toState(row: ScheduleRow): ScheduleState {
  return {
    schedule: row.schedule,
    taskName: row.taskName,
    cron: row.cron,
    timeZone: row.timeZone,
    lastSlot: new Date(Math.round(Number(row.lastSlotMs))),
    updatedAt: new Date(Math.round(Number(row.updatedAtMs))),
  };
}

/**
 * Inserts the new schedules with last_slot = now(), updates the changed ones (keeping last_slot), in id order; then
 * reads the declared rows. A concurrent sync's insert of the same id makes this one wait for it, then update or skip.
 */
export async function syncSchedules(db: Db, table: PgTable, declared: readonly ScheduleDeclaration[]): Promise<ScheduleState[]> {
  const rows = distinctDeclarations(declared);
  if (rows.length === 0) return [];
  await db.query(
    `INSERT INTO ${table.schedules} AS s (schedule, task_name, cron, time_zone, last_slot, updated_at)
     SELECT d.schedule, d.task_name, d.cron, d.time_zone, now(), now()
     FROM jsonb_to_recordset($1::jsonb) AS d(schedule text, task_name text, cron text, time_zone text)
     ON CONFLICT (schedule) DO UPDATE SET task_name = EXCLUDED.task_name, cron = EXCLUDED.cron, time_zone = EXCLUDED.time_zone, updated_at = now()
     WHERE (s.task_name, s.cron, s.time_zone) IS DISTINCT FROM (EXCLUDED.task_name, EXCLUDED.cron, EXCLUDED.time_zone)`,
    [JSON.stringify(rows.map((row) => ({ schedule: row.schedule, task_name: row.taskName, cron: row.cron, time_zone: row.timeZone })))],
  );
  const found = await db.query<ScheduleRow>(`SELECT ${COLUMNS} FROM ${table.schedules} WHERE schedule = ANY($1::text[]) ORDER BY schedule COLLATE "C"`, [
    rows.map((row) => row.schedule),
  ]);
  return found.map(toState);
}

/** Writes the slot's row unless it exists; true when this call wrote it. A concurrent claim waits for the first's end. */
export async function claimScheduleSlot(db: Db, table: PgTable, schedule: string, slot: Date, taskId: string): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO ${table.scheduleSlots} (schedule, slot, task_id, fired_at) VALUES ($1, $2::timestamptz, $3::uuid, now())
     ON CONFLICT (schedule, slot) DO NOTHING
     RETURNING 1 AS written`,
    [schedule, slot.toISOString(), taskId],
  );
  return rows.length > 0;
}

/** Moves last_slot forward to `slot`, never back. */
export async function advanceSchedule(db: Db, table: PgTable, schedule: string, slot: Date): Promise<void> {
  await db.query(`UPDATE ${table.schedules} SET last_slot = $2::timestamptz, updated_at = now() WHERE schedule = $1 AND last_slot < $2::timestamptz`, [
    schedule,
    slot.toISOString(),
  ]);
}

/** Every schedule, by id. */
export async function listSchedules(db: Db, table: PgTable): Promise<ScheduleState[]> {
  return (await db.query<ScheduleRow>(`SELECT ${COLUMNS} FROM ${table.schedules} ORDER BY schedule COLLATE "C"`, [])).map(toState);
}

/**
 * Deletes at most `limit` slots fired before `before` that are at or behind their schedule's last_slot, oldest fired
 * first, skipping slots another transaction holds. A slot after last_slot stays: it still refuses its firing.
 */
export async function pruneScheduleSlots(db: Db, table: PgTable, before: Date, limit: number): Promise<number> {
  const rows = await db.query<{ n: number }>(
    `WITH gone AS (
       DELETE FROM ${table.scheduleSlots} WHERE (schedule, slot) IN (
         SELECT x.schedule, x.slot FROM ${table.scheduleSlots} x JOIN ${table.schedules} s ON s.schedule = x.schedule
         WHERE x.fired_at < $1::timestamptz AND x.slot <= s.last_slot
         ORDER BY x.fired_at
         LIMIT $2
         FOR UPDATE OF x SKIP LOCKED)
       RETURNING 1)
     SELECT count(*)::int AS n FROM gone`,
    [before.toISOString(), Math.max(0, Math.floor(limit))],
  );
  return Number(rows[0]?.n ?? 0);
}
