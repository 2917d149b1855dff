// SQL units of recurring tasks on MySQL and MariaDB: the schedules' rows (last_slot never moves back) and the fired
// slots, whose primary key (schedule, slot) refuses a second firing. Times travel as UTC text, DATETIME(3).

import type { CountingDb } from "../../../store/db.js";
import { distinctDeclarations, type ScheduleDeclaration, type ScheduleState } from "../../../store/schedules.js";
import type { MysqlTable } from "../table.js";
import { fromTimeText, placeholders, timeText, toTimeText } from "./values.js";

/** The database's clock to milliseconds, in UTC: the precision of the schedule tables. */
const NOW3 = "UTC_TIMESTAMP(3)";

/** ER_LOCK_DEADLOCK: two syncs' upserts of the same new ids can deadlock on the key's gap; the statement is retried. */
const DEADLOCK = 1213;

/** True for a deadlock error, from the mariadb driver or through Prisma's adapter. */
function isDeadlock(error: unknown): boolean {
  const e = (error ?? {}) as { errno?: unknown; meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } } };
  return Number(e.errno ?? e.meta?.driverAdapterError?.cause?.originalCode) === DEADLOCK;
}

interface ScheduleRow {
  schedule: string;
  task_name: string;
  cron: string;
  time_zone: string;
  last_slot: string;
  updated_at: string;
}

const COLUMNS = `schedule, task_name, cron, time_zone, ${timeText("last_slot")} AS last_slot, ${timeText("updated_at")} AS updated_at`;

function toState(row: ScheduleRow): ScheduleState {
  return {
    schedule: row.schedule,
    taskName: row.task_name,
    cron: row.cron,
    timeZone: row.time_zone,
    lastSlot: fromTimeText(row.last_slot),
    updatedAt: fromTimeText(row.updated_at),
  };
}

/** Refuses what the columns would cut short, so that no statement depends on the server's strict mode. */
function checkFits(field: string, value: string, max: number): void {
  if ([...value].length > max) throw new RangeError(`a schedule's ${field} is ${[...value].length} characters, over the MySQL column's ${max}; shorten it`);
}

/**
 * Inserts the new schedules with last_slot = now, updates the changed ones (keeping last_slot), in id order; then reads
 * the declared rows. updated_at is assigned first, while the row still holds its old values (MySQL assigns left to
 * right); the JSON's columns have names of their own, so the row's columns are never ambiguous. Outside a transaction
 * a deadlock with a concurrent sync retries the statement.
 */
export async function syncSchedules(db: CountingDb, table: MysqlTable, declared: readonly ScheduleDeclaration[]): Promise<ScheduleState[]> {
  const rows = distinctDeclarations(declared);
  if (rows.length === 0) return [];
  for (const row of rows) {
    checkFits("task name", row.taskName, 200);
    checkFits("cron", row.cron, 200);
    checkFits("time zone", row.timeZone, 100);
  }
  const json = JSON.stringify(rows.map((row) => ({ schedule: row.schedule, task_name: row.taskName, cron: row.cron, time_zone: row.timeZone })));
  const upsert = () =>
    db.write(
      `INSERT INTO ${table.schedules} (schedule, task_name, cron, time_zone, last_slot, updated_at)
       SELECT j.d_schedule, j.d_task_name, j.d_cron, j.d_time_zone, ${NOW3}, ${NOW3}
       FROM JSON_TABLE(?, '$[*]' COLUMNS (
         d_schedule VARCHAR(400) PATH '$.schedule', d_task_name VARCHAR(200) PATH '$.task_name',
         d_cron VARCHAR(200) PATH '$.cron', d_time_zone VARCHAR(100) PATH '$.time_zone'
       )) AS j
       ON DUPLICATE KEY UPDATE
         updated_at = IF(task_name = VALUES(task_name) AND cron = VALUES(cron) AND time_zone = VALUES(time_zone), updated_at, ${NOW3}),
         task_name = VALUES(task_name), cron = VALUES(cron), time_zone = VALUES(time_zone)`,
      [json],
    );
  for (let attempt = 1; ; attempt++) {
    try {
      await upsert();
      break;
    } catch (error) {
      // Inside a transaction (no transaction() of its own) a deadlock rolled back the caller's work: not ours to retry.
      if (!db.transaction || attempt >= 3 || !isDeadlock(error)) throw error;
    }
  }
  const ids = rows.map((row) => row.schedule);
  const found = await db.query<ScheduleRow>(`SELECT ${COLUMNS} FROM ${table.schedules} WHERE schedule IN (${placeholders(ids.length)}) ORDER BY schedule`, ids);
  return found.map(toState);
}

/**
 * Writes the slot's row unless it exists; true when this call wrote it. INSERT IGNORE skips a duplicate key (a
 * concurrent claim waits for the first transaction's end on the key, then skips or writes); the lengths are checked
 * first, since IGNORE would also cut a value short with a warning.
 */
export async function claimScheduleSlot(db: CountingDb, table: MysqlTable, schedule: string, slot: Date, taskId: string): Promise<boolean> {
  checkFits("id", schedule, 400);
  if (!/^[0-9a-fA-F-]{36}$/.test(taskId)) throw new RangeError(`a slot's task id must be a UUID, got ${JSON.stringify(taskId)}`);
  const written = await db.write(`INSERT IGNORE INTO ${table.scheduleSlots} (schedule, slot, task_id, fired_at) VALUES (?, CAST(? AS DATETIME(3)), ?, ${NOW3})`, [
    schedule,
    toTimeText(slot),
    taskId,
  ]);
  return written > 0;
}

/** Moves last_slot forward to `slot`, never back. */
export async function advanceSchedule(db: CountingDb, table: MysqlTable, schedule: string, slot: Date): Promise<void> {
  const at = toTimeText(slot);
  await db.write(`UPDATE ${table.schedules} SET last_slot = CAST(? AS DATETIME(3)), updated_at = ${NOW3} WHERE schedule = ? AND last_slot < CAST(? AS DATETIME(3))`, [
    at,
    schedule,
    at,
  ]);
}

/** Every schedule, by id. */
export async function listSchedules(db: CountingDb, table: MysqlTable): Promise<ScheduleState[]> {
  return (await db.query<ScheduleRow>(`SELECT ${COLUMNS} FROM ${table.schedules} ORDER BY schedule`, [])).map(toState);
}

/**
 * Deletes at most `limit` slots fired before `before` that are at or behind their schedule's last_slot, oldest fired
 * first, in one statement. A slot after last_slot stays: it still refuses its firing.
 */
export async function pruneScheduleSlots(db: CountingDb, table: MysqlTable, before: Date, limit: number): Promise<number> {
  return db.write(
    `DELETE FROM ${table.scheduleSlots}
     WHERE fired_at < CAST(? AS DATETIME(3))
       AND slot <= (SELECT s.last_slot FROM ${table.schedules} s WHERE s.schedule = ${table.scheduleSlots}.schedule)
     ORDER BY fired_at
     LIMIT ?`,
    [toTimeText(before), Math.max(0, Math.floor(limit))],
  );
}
