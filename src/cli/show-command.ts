// `task-runner show <id>`: one task as an operator reads it: status, attempts, who finished it, the current error, the
// history of earlier errors (the last 10 failed attempts) and, for a workflow, its recorded steps (its sleep or wait)
// and its children. `--json` prints the row, its steps and its children for scripts.

import type { TaskDetail } from "../store/views.js";
import type { ChildState, StepRecord } from "../store/steps.js";
import { StoreProblemError } from "../store/store-problem.js";
import { COMMON_HELP, commandConfig, commandTable, parseCommand, type CliIo } from "./command-context.js";
import { withStore } from "./database-session.js";
import { CliError, EXIT_NOT_FOUND, EXIT_OK } from "./exit-codes.js";
import { taskIdArgument } from "./task-lookup.js";
import { uuidv7Time } from "../uuid.js";

const showHelp = `Usage: task-runner show <id> [--json]

Shows one task: status, attempts, the worker that finished it, its current error (none once it succeeded), its
error history (the last 10 failed attempts, oldest first) and, for a workflow, its steps in order (name, kind, the run
that recorded it, when, and its result, wake-up time or the event it waits for), the workflow that started it, and the
children it started (each one's status). Exit code 3 says the task does not exist.

Options:
      --json               print the task as one JSON object

${COMMON_HELP}`;

export async function showCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommand("show", argv, { json: { type: "boolean" } });
  if (values.help) {
    io.out(showHelp);
    return EXIT_OK;
  }
  const id = taskIdArgument("show", positionals);
  const config = await commandConfig(values, io, { database: true });
  const table = commandTable(config);
  return withStore(config.databaseUrl!, table, config.sources.databaseUrl, async (store) => {
    const task = await store.findTask(id);
    if (!task) throw new CliError(notFound(id, table.schema ? `${table.schema}.${table.name}` : table.name), EXIT_NOT_FOUND);
    const { now: _now, ...row } = task;
    // A database without the workflow migrations has no steps or children to show; the task is shown all the same.
    const unlessMissing = (error: unknown) => {
      if (error instanceof StoreProblemError) return undefined;
      throw error;
    };
    const steps = await store.loadSteps(id).catch(unlessMissing);
    const children = await store.childStates(id).catch(unlessMissing);
    io.out(
      values.json
        ? `${JSON.stringify({ ...row, ...(steps && { steps: steps.map(stepJson) }), ...(children && { children: children.map(childJson) }) }, null, 2)}\n`
        : renderTask(task, steps ?? [], children ?? []),
    );
    return EXIT_OK;
  });
}

/** Why a task may be missing: a row is deleted at once by delete on success, and after retentionMs by the cleaner. */
function notFound(id: string, table: string): string {
  const madeAt = uuidv7Time(id);
  return (
    `task ${id} not found in ${JSON.stringify(table)}. ` +
    (madeAt ? `Its id was made at ${madeAt.toISOString()}. ` : "") +
    "A task's row is deleted when it succeeds with nothing to keep under deleteOnSuccess, and once finished for longer " +
    "than the cleaner's retentionMs; else the id belongs to another table or database."
  );
}

function renderTask(task: TaskDetail, steps: readonly StepRecord[], children: readonly ChildState[]): string {
  const lines = [
    `Task ${task.id} (${task.name}) on queue "${task.queue}": ${task.status}, attempt ${task.attempts} of ${task.maxAttempts}`,
    `Run at: ${task.runAt.toISOString()}`,
  ];
  if (task.parentId) lines.push(`Started by workflow: ${task.parentId}`);
  if (task.leaseOwner !== null) lines.push(`Running on: ${task.leaseOwner} (lease until ${task.leaseExpiresAt?.toISOString() ?? "?"})`);
  if (task.finishedAt !== null) lines.push(`Finished: ${task.finishedAt.toISOString()}`);
  if (task.finishedBy !== null) lines.push(`Last finished or failed by: ${task.finishedBy}`);
  lines.push(task.lastError === null ? "Current error: none" : `Current error:\n${indent(task.lastError, "  ")}`);
  if (task.errors.length === 0) lines.push("Error history: none");
  else {
    lines.push(`Error history (${task.errors.length}, oldest first):`);
    for (const entry of task.errors) lines.push(`  attempt ${entry.attempt} · ${entry.at.toISOString()}`, indent(entry.error, "    "));
  }
  if (steps.length > 0) {
    lines.push(`Steps (${steps.length}, in order):`);
    for (const step of steps)
      lines.push(`  ${step.seq}. ${step.kind} ${JSON.stringify(step.name)} · run ${step.attempt} · ${step.createdAt.toISOString()} · ${stepState(step)}`);
  }
  if (children.length > 0) {
    lines.push(`Children (${children.length}, oldest first):`);
    for (const child of children) lines.push(`  ${child.id} (${child.name}): ${child.status}${child.lastError ? ` · ${shorten(child.lastError.split("\n")[0]!)}` : ""}`);
  }
  return `${lines.join("\n")}\n`;
}

/** What a step ended with, or what it waits for. */
function stepState(step: StepRecord): string {
  const until = step.until ? step.until.toISOString() : "no deadline";
  if (step.kind === "sleep") return `sleeps until ${until}`;
  if (step.kind === "wait" && step.state === "waiting") return `waiting for its event until ${until}`;
  if (step.kind === "wait" && step.resultJson === null) return "timed out";
  return `${step.kind === "wait" ? "received " : ""}${shorten(step.resultJson ?? "null")}`;
}

function shorten(text: string): string {
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

/** A step as --json prints it: its result parsed. */
function stepJson(step: StepRecord) {
  const { resultJson, ...rest } = step;
  return { ...rest, result: resultJson === null ? null : (JSON.parse(resultJson) as unknown) };
}

/** A child as --json prints it: its result parsed. */
function childJson(child: ChildState) {
  const { resultJson, ...rest } = child;
  return { ...rest, result: resultJson === null ? null : (JSON.parse(resultJson) as unknown) };
}

function indent(text: string, prefix: string): string {
  return text
    .split("\n")
    .map((line) => prefix + line)
    .join("\n");
}
