// What to do about a database problem, in words an operator can act on: one sentence per kind of StoreProblem, shared
// by the worker's start check, the CLI and the dashboard, naming the option (or variable) that holds the fix.

import type { StoreProblem } from "./store/store-problem.js";
import type { TaskTable } from "./store/task-table.js";

/** Where the advice points: the option or flag that holds the URL, the table, the database's name for people. */
interface AdviceContext {
  option: string;
  table: TaskTable;
  displayName: string;
}

/** The fix for `problem`, as a clause without a final period. */
export function databaseAdvice(problem: StoreProblem, context: AdviceContext): string {
  const { option, table, displayName } = context;
  if (problem.detail) return problem.detail;
  const shown = JSON.stringify(table.schema ? `${table.schema}.${table.name}` : table.name);
  if (problem.detail) return problem.detail; // the dialect knows the fix better than the kind says
  switch (problem.kind) {
    case "credentials":
      return `the credentials were refused: check the user and password in ${option}`;
    case "missing-database":
      return `that database does not exist: check the database name in ${option}`;
    case "missing-table":
      return `the table ${shown} does not exist there: apply the migration (npx task-runner init writes it, npx task-runner migrate applies it), or set the table/schema options to the ones taskQueue() uses`;
    case "privilege":
      return `the user may not use ${shown}: grant it SELECT, INSERT, UPDATE and DELETE on the table`;
    case "server-too-old":
      return `this ${displayName} server is too old`;
    case "unreachable":
      return `is ${displayName} running and reachable there? Check the host and port in ${option}`;
    default:
      return `is ${displayName} running and reachable there? Check ${option}`;
  }
}
