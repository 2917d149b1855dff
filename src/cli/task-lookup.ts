// Explains why an operator action changed nothing: the task does not exist, or its status does not allow the action.

import type { Store } from "../store/store.js";
import { isTaskId } from "../store/task-id.js";
import type { TaskTable } from "../store/task-table.js";
import { CliError, EXIT_NOT_FOUND, EXIT_USAGE } from "./exit-codes.js";

/** The id argument of a command, or a usage error (exit 2) when it is missing or not a task id. */
export function taskIdArgument(command: string, positionals: string[]): string {
  if (positionals.length !== 1) {
    throw new CliError(`\`task-runner ${command}\` takes one task id, got ${positionals.length}. Run \`task-runner ${command} --help\`.`, EXIT_USAGE);
  }
  const id = positionals[0]!;
  if (!isTaskId(id)) throw new CliError(`${JSON.stringify(id)} is not a task id (a UUID such as 0193c0de-…).`, EXIT_USAGE);
  return id.toLowerCase();
}

/** The exit-3 error for an action that matched no row: says whether the task is missing or in which status it is. */
export async function notActionable(store: Store, table: TaskTable, id: string, action: string, allowed: string): Promise<CliError> {
  const task = await store.findTask(id);
  const shown = JSON.stringify(table.schema ? `${table.schema}.${table.name}` : table.name);
  if (!task) return new CliError(`task ${id} not found in ${shown}.`, EXIT_NOT_FOUND);
  return new CliError(`task ${id} (${task.name}) is ${task.status}; only ${allowed} tasks can be ${action}.`, EXIT_NOT_FOUND);
}
