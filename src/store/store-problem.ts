// Driver errors as the core needs to know them, classified by each dialect's error table: does waiting help
// (unreachable, busy) or not (wrong credentials, no such database or table, no privilege, a server too old, rows
// written in a format the dialect's SQL cannot compare).

/** What went wrong, dialect-neutral. */
export type StoreProblemKind = "unreachable" | "credentials" | "missing-database" | "missing-table" | "privilege" | "server-too-old" | "incompatible" | "other";

/** A classified driver error. */
export interface StoreProblem {
  kind: StoreProblemKind;
  /** True when waiting and retrying cannot fix it: the configuration or the schema must change. */
  lasting: boolean;
  /** The driver's own message. */
  message: string;
  /** The dialect's detail about the fix, when it knows more than the kind says (e.g. the version found and needed). */
  detail?: string;
}

/** An operation's failure the store has classified already: Store.classify() answers its `problem`. */
export class StoreProblemError extends Error {
  constructor(
    readonly problem: StoreProblem,
    options?: { cause?: unknown },
  ) {
    super(problem.detail ? `${problem.message}: ${problem.detail}` : problem.message, options);
    this.name = "StoreProblemError";
  }
}

/** A companion table of the task table that is missing: which one (by its suffix), what is wrong, and the migration. */
function missingCompanion(table: { name: string; schema?: string }, message: string, suffix: string, wrong: string, migration: string): StoreProblem {
  const shown = JSON.stringify(`${table.schema ? `${table.schema}.` : ""}${table.name}_${suffix}`);
  return {
    kind: "missing-table",
    lasting: true,
    message,
    detail: `the table ${shown} ${wrong}: apply the migration ${migration} ` + `(copy it from the package into your migrations folder, then npx task-runner migrate)`,
  };
}

/** The problem of a schedule operation on a database without the schedule tables: which table, and the migration. */
export function missingScheduleTable(table: { name: string; schema?: string }, message: string): StoreProblem {
  return missingCompanion(table, message, "schedules", "of recurring tasks does not exist there", "20261203000000_task_schedules");
}

/** A missing tally table of the scaling signal: which table, and the migration that creates it. */
export function missingTallyTable(table: { name: string; schema?: string }, message: string): StoreProblem {
  return missingCompanion(table, message, "tallies", "of the scaling signal's tallies does not exist there", "20261224000000_queue_tallies");
}

/**
 * The problem of a workflow operation on a database without the workflow migrations (their tables, or the task table's
 * waiting_for or parent_id column): which, and the migration. Undefined when `message` is about something else.
 */
export function missingWorkflowSchema(table: { name: string; schema?: string }, problem: StoreProblem): StoreProblem | undefined {
  const { message } = problem;
  for (const suffix of ["steps", "events"]) {
    if (problem.kind === "missing-table" && new RegExp(`\\b${table.name}_${suffix}\\b`).test(message)) {
      return missingCompanion(table, message, suffix, "of durable workflows does not exist there", WORKFLOW_MIGRATION);
    }
  }
  const column = [
    { column: "waiting_for", what: "durable workflows", migration: WORKFLOW_MIGRATION },
    { column: "parent_id", what: "a workflow's children", migration: CHILDREN_MIGRATION },
  ].find(({ column }) => missingColumn(column).test(message));
  if (!column) return undefined;
  return missingColumnProblem(table, message, `the ${column.column} column of ${column.what}`, column.migration);
}

/** A task table without a column a migration adds: `what` the column is, and the migration that adds it. */
function missingColumnProblem(table: { name: string; schema?: string }, message: string, what: string, migration: string): StoreProblem {
  const shown = JSON.stringify(`${table.schema ? `${table.schema}.` : ""}${table.name}`);
  return {
    kind: "incompatible",
    lasting: true,
    message,
    detail: `the task table ${shown} lacks ${what}: apply the migration ${migration} (copy it from the package into your migrations folder, then npx task-runner migrate)`,
  };
}

/** The migration that adds workflows' steps and events. */
export const WORKFLOW_MIGRATION = "20261231000000_workflow_steps";

/** The migration that adds a workflow's children (the task table's parent_id). */
export const CHILDREN_MIGRATION = "20270107000000_workflow_children";

/** The problem of a claim or a queue control on a database without the queue tables: which table, and the migration. */
export function missingQueueTable(table: { name: string; schema?: string }, message: string): StoreProblem {
  return missingCompanion(
    table,
    message,
    "queues",
    "of queue controls (pauses and limits) does not exist there, or the task table lacks its concurrency_key column",
    "20261210000000_queue_controls",
  );
}

/** The columns a claim reads that migrations added, newest last, each with its migration and what it is for. */
const CLAIMED_COLUMNS = [
  { column: "trace_context", migration: "20261217000000_trace_context" },
  { column: "parent_id", migration: CHILDREN_MIGRATION },
];

/**
 * The problem of a task table without a column a claim reads that a migration added (trace_context, parent_id): each
 * dialect's check() selects them, so a worker started before the migration ran fails at once, naming the migration,
 * instead of failing every claim. Undefined when `error` is about something else.
 */
export function missingNewestColumn(table: { name: string; schema?: string }, error: unknown): StoreProblem | undefined {
  const message = error instanceof Error ? error.message : String(error);
  // PostgreSQL, MySQL/MariaDB, SQLite: only the error about the column itself (a driver may quote the whole statement).
  const missing = CLAIMED_COLUMNS.find(({ column }) => missingColumn(column).test(message));
  return missing && missingColumnProblem(table, message, `the ${missing.column} column that this version reads with every claim`, missing.migration);
}

/** The error each dialect gives for a missing column `column`. */
function missingColumn(column: string): RegExp {
  return new RegExp(`column "${column}" does not exist|Unknown column '(?:[^']*\\.)?${column}'|no such column: (?:\\w+\\.)?${column}\\b`, "i");
}
