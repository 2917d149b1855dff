// The task table's name: validated once by regex, quoted once, used by every SQL unit.

import { TaskQueueConfigError } from "../errors.js";

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** A validated, quoted, optionally schema-qualified table name. */
export interface TaskTable {
  /** Quoted and qualified, ready to splice into SQL: `"tasks"` or `"app"."tasks"`. */
  readonly sql: string;
  /** The unquoted table name. */
  readonly name: string;
  /** The unquoted schema, when one was given. */
  readonly schema?: string;
}

/** Validates `name` (and `schema`) as PostgreSQL identifiers and returns the quoted form. */
export function taskTable(name = "tasks", schema?: string): TaskTable {
  for (const [option, value] of [["table", name], ["schema", schema]] as const) {
    if (value !== undefined && !IDENTIFIER.test(value)) {
      throw new TaskQueueConfigError(
        option,
        `${JSON.stringify(value)} is not a plain identifier; use letters, digits and "_" (at most 63, not starting with a digit).`,
      );
    }
  }
  const sql = schema ? `"${schema}"."${name}"` : `"${name}"`;
  return { sql, name, schema };
}
