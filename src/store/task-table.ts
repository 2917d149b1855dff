// The task table's name, validated once by regex. Each dialect quotes it once in its own way; nothing downstream
// splices an unchecked name into SQL.

import { TaskQueueConfigError } from "../errors.js";

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** A validated table name, optionally in a schema (PostgreSQL) or database (MySQL). */
export interface TaskTable {
  /** The unquoted table name. */
  readonly name: string;
  /** The unquoted schema, when one was given. */
  readonly schema?: string;
}

/** Validates `name` (and `schema`) as plain identifiers: letters, digits and "_", at most 63, not starting with a digit. */
export function taskTable(name = "tasks", schema?: string): TaskTable {
  for (const [option, value] of [
    ["table", name],
    ["schema", schema],
  ] as const) {
    if (value !== undefined && (typeof value !== "string" || !IDENTIFIER.test(value))) {
      throw new TaskQueueConfigError(option, `${JSON.stringify(value)} is not a plain identifier; use letters, digits and "_" (at most 63, not starting with a digit).`);
    }
  }
  return schema === undefined ? { name } : { name, schema };
}

/** The tables that live beside the task table, named after it: the same in every dialect, quoted by each its own way. */
export interface CompanionTables {
  /** The schedules of recurring tasks: `tasks_schedules`. */
  readonly schedules: string;
  /** Their fired slots: `tasks_schedule_slots`. */
  readonly scheduleSlots: string;
  /** A row per paused or limited queue: `tasks_queues`. */
  readonly queues: string;
  /** The starts of rate-limited queues: `tasks_queue_starts`. */
  readonly queueStarts: string;
  /** The scaling signal's tallies, a row per queue, writer and slot: `tasks_tallies`. */
  readonly tallies: string;
  /** The steps workflows recorded, a row per task and step: `tasks_steps`. */
  readonly steps: string;
  /** Events sent to tasks, kept until a wait consumes them: `tasks_events`. */
  readonly events: string;
}

/** The companion tables of `table`, each name passed through the dialect's `quote`. */
export function companionTables(table: TaskTable, quote: (name: string) => string): CompanionTables {
  return {
    schedules: quote(`${table.name}_schedules`),
    scheduleSlots: quote(`${table.name}_schedule_slots`),
    queues: quote(`${table.name}_queues`),
    queueStarts: quote(`${table.name}_queue_starts`),
    tallies: quote(`${table.name}_tallies`),
    steps: quote(`${table.name}_steps`),
    events: quote(`${table.name}_events`),
  };
}
