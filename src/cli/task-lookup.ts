// Explains why an operator action changed nothing: the task does not exist, or its status does not allow the action.

import type { Db } from "../db/driver.js";
import type { TaskTable } from "../db/table.js";
import { CliError, EXIT_NOT_FOUND, EXIT_USAGE } from "./exit-codes.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The id argument of a command, or a usage error (exit 2) when it is missing or not a task id. */
export function taskIdArgument(command: string, positionals: string[]): string {
  if (positionals.length !== 1) {
    throw new CliError(`\`task-runner ${command}\` takes one task id, got ${positionals.length}. Run \`task-runner ${command} --help\`.`, EXIT_USAGE);
  }
  const id = positionals[0]!;
  if (!UUID.test(id)) throw new CliError(`${JSON.stringify(id)} is not a task id (a UUID such as 0193c0de-…).`, EXIT_USAGE);
  return id.toLowerCase();
}

/** The exit-3 error for an action that matched no row: says whether the task is missing or in which status it is. */
export async function notActionable(db: Db, table: TaskTable, id: string, action: string, allowed: string): Promise<CliError> {
  const rows = await db.query<{ status: string; name: string }>(`SELECT status, name FROM ${table.sql} WHERE id = $1::uuid`, [id]);
  const row = rows[0];
  if (!row) return new CliError(`task ${id} not found in ${table.sql}.`, EXIT_NOT_FOUND);
  return new CliError(`task ${id} (${row.name}) is ${row.status}; only ${allowed} tasks can be ${action}.`, EXIT_NOT_FOUND);
}
