// SQL units of recurring tasks on SQLite: the schedules' rows (last_slot never moves back) and the fired slots, whose
// primary key (schedule, slot) refuses a second firing. Times are ISO 8601 text in UTC, compared as text.

import type { Db } from "../../../store/db.js";
import { distinctDeclarations, type ScheduleDeclaration, type ScheduleState } from "../../../store/schedules.js";
import { bind } from "../bind.js";
import { NOW, storedTime, toDate } from "../clock.js";
import type { SqliteTable } from "../table.js";

interface ScheduleRow {
  schedule: string;
  task_name: string;
  cron: string;
  time_zone: string;
  last_slot: unknown;
  updated_at: unknown;
}

const COLUMNS = "schedule, task_name, cron, time_zone, last_slot, updated_at";

function toState(row: ScheduleRow): ScheduleState {
  return {
    schedule: row.schedule,
    taskName: row.task_name,
    cron: row.cron,
    timeZone: row.time_zone,
    lastSlot: toDate(row.last_slot),
    updatedAt: toDate(row.updated_at),
  };
}

/**
 * Inserts the new schedules with last_slot = now, updates the changed ones (keeping last_slot), in one statement under
 * the database's write lock; then reads the declared rows. (`WHERE true` keeps SQLite from reading ON CONFLICT as a
 * join's ON.)
 */
export async function syncSchedules(db: Db, table: SqliteTable, declared: readonly ScheduleDeclaration[]): Promise<ScheduleState[]> {
  const rows = distinctDeclarations(declared);
  if (rows.length === 0) return [];
  const json = JSON.stringify(rows.map((row) => ({ schedule: row.schedule, task_name: row.taskName, cron: row.cron, time_zone: row.timeZone })));
  await db.query(
    ...bind(
      `INSERT INTO ${table.schedules} (schedule, task_name, cron, time_zone, last_slot, updated_at)
       SELECT j.value ->> '$.schedule', j.value ->> '$.task_name', j.value ->> '$.cron', j.value ->> '$.time_zone', ${NOW}, ${NOW}
       FROM json_each({declared}) AS j WHERE true
       ON CONFLICT (schedule) DO UPDATE SET task_name = excluded.task_name, cron = excluded.cron, time_zone = excluded.time_zone, updated_at = ${NOW}
       WHERE task_name <> excluded.task_name OR cron <> excluded.cron OR time_zone <> excluded.time_zone`,
      { declared: json },
    ),
  );
  const found = await db.query<ScheduleRow>(
    ...bind(`SELECT ${COLUMNS} FROM ${table.schedules} WHERE schedule IN (SELECT value FROM json_each({ids})) ORDER BY schedule`, {
      ids: JSON.stringify(rows.map((row) => row.schedule)),
    }),
  );
  return found.map(toState);
}

/** Writes the slot's row unless it exists; true when this call wrote it (one writer at a time: no race). */
export async function claimScheduleSlot(db: Db, table: SqliteTable, schedule: string, slot: Date, taskId: string): Promise<boolean> {
  const rows = await db.query(
    ...bind(
      `INSERT INTO ${table.scheduleSlots} (schedule, slot, task_id, fired_at) VALUES ({schedule}, {slot}, {taskId}, ${NOW})
       ON CONFLICT (schedule, slot) DO NOTHING
       RETURNING 1 AS written`,
      { schedule, slot: storedTime(slot), taskId },
    ),
  );
  return rows.length > 0;
}

/** Moves last_slot forward to `slot`, never back. */
export async function advanceSchedule(db: Db, table: SqliteTable, schedule: string, slot: Date): Promise<void> {
  await db.query(
    ...bind(`UPDATE ${table.schedules} SET last_slot = {slot}, updated_at = ${NOW} WHERE schedule = {schedule} AND last_slot < {slot}`, {
      schedule,
      slot: storedTime(slot),
    }),
  );
}

/** Every schedule, by id. */
export async function listSchedules(db: Db, table: SqliteTable): Promise<ScheduleState[]> {
  return (await db.query<ScheduleRow>(`SELECT ${COLUMNS} FROM ${table.schedules} ORDER BY schedule`, [])).map(toState);
}

/**
 * Deletes at most `limit` slots fired before `before` that are at or behind their schedule's last_slot, oldest fired
 * first. A slot after last_slot stays: it still refuses its firing.
 */
export async function pruneScheduleSlots(db: Db, table: SqliteTable, before: Date, limit: number): Promise<number> {
  const rows = await db.query(
    ...bind(
      `DELETE FROM ${table.scheduleSlots} WHERE rowid IN (
         SELECT x.rowid FROM ${table.scheduleSlots} x JOIN ${table.schedules} s ON s.schedule = x.schedule
         WHERE x.fired_at < {before} AND x.slot <= s.last_slot
         ORDER BY x.fired_at LIMIT {limit})
       RETURNING 1 AS gone`,
      { before: storedTime(before), limit: Math.max(0, Math.floor(limit)) },
    ),
  );
  return rows.length;
}
