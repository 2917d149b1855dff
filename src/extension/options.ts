// The options of taskQueue() and their checks: what a caller may pass, the defaults, and the early failures that name
// the fix (a bad model name, a model mapped to another table, a payload limit that is not a positive integer).

import { valueText } from "../value-text.js";
import { MAX_BUDGET_MS, MIN_BUDGET_MS } from "../serverless/budget.js";
import type { TaskRegistry } from "../define-tasks.js";
import { TaskQueueConfigError } from "../errors.js";
import { jsonLogger, type Logger } from "../logger.js";
import type { NamingOptions } from "../naming-options.js";
import { taskTable, type TaskTable } from "../store/task-table.js";
import { checkTransportOptions } from "../wakeups/open-transport.js";
import type { PrismaClientLike } from "./prisma-client.js";

/** Options of taskQueue(). */
export interface TaskQueueOptions<Tasks extends TaskRegistry, Model extends string = "Task"> extends NamingOptions {
  /** The registry from defineTasks(). */
  tasks: Tasks;
  /**
   * RabbitMQ URL for wake-ups, e.g. amqp://guest:guest@127.0.0.1:5672. Default: none, and then wake-ups go by
   * PostgreSQL NOTIFY on PostgreSQL, in-process on SQLite, and nowhere on MySQL (workers poll): see `wakeups`.
   */
  amqpUrl?: string;
  /** Name of the Prisma model of the task table. Default "Task"; enqueue is added to `prisma.<model>` (`prisma.task`). */
  model?: Model;
  /** Largest payload accepted, in bytes of JSON. Default 262144 (256 KiB). Larger payloads throw TaskPayloadTooLargeError. */
  maxPayloadBytes?: number;
  /** Where warnings (a failed publish, a broker reconnect) go. Default: JSON lines on stderr, info and above. */
  logger?: Logger;
  /** Called when wake-ups could not be published after a commit. The rows stay unpublished and the cleaner re-publishes them. */
  onPublishError?: (ids: string[], error: Error) => void;
  /**
   * Next.js's `after` (`import { after } from "next/server"`): each commit that enqueued due tasks runs them in the same
   * invocation once the response is sent, with the real claim, lease and outcome (Node.js runtime, route handlers and
   * server actions). Default: none. A transactional task runs in this client's `$transaction`. A task whose `timeoutMs`
   * does not fit in `afterBudgetMs`, or one a worker claims first, is left to the cron route (prisma-task-queue/next) or
   * the workers. See docs/nextjs.md.
   */
  after?: (callback: () => Promise<void>) => void;
  /**
   * With `after`: how long those runs may take, in ms: what the function's time limit leaves after the response.
   * Default 10000; 1,000 to 900,000. Tasks start only when their timeoutMs fits.
   */
  afterBudgetMs?: number;
}

/** The options once checked, with their defaults filled in. */
export interface ResolvedTaskQueueOptions<Tasks extends TaskRegistry> {
  tasks: Tasks;
  table: TaskTable;
  /** The Prisma model name, e.g. "Task". */
  modelName: string;
  /** The key of that model on the client, e.g. "task". */
  modelKey: string;
  maxPayloadBytes: number;
  logger: Logger;
  /** Next.js's after, and the time its runs may take. */
  after: { run: (callback: () => Promise<void>) => void; budgetMs: number } | undefined;
}

export const DEFAULT_MAX_PAYLOAD_BYTES = 256 * 1024;

/** Checks the options of taskQueue() before any client is seen; throws TaskQueueConfigError naming the fix. */
export function resolveTaskQueueOptions<Tasks extends TaskRegistry>(options: TaskQueueOptions<Tasks, string>): ResolvedTaskQueueOptions<Tasks> {
  const { tasks } = options;
  if (typeof tasks !== "object" || tasks === null) {
    throw new TaskQueueConfigError("tasks", "pass the registry returned by defineTasks({...}).");
  }
  const table = taskTable(options.table, options.schema);
  const modelName = options.model ?? "Task";
  if (typeof modelName !== "string" || !/^[A-Za-z][A-Za-z0-9_]*$/.test(modelName)) {
    throw new TaskQueueConfigError("model", `${JSON.stringify(modelName)} is not a Prisma model name.`);
  }
  const modelKey = modelName[0]!.toLowerCase() + modelName.slice(1);
  const maxPayloadBytes = options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES;
  if (!Number.isSafeInteger(maxPayloadBytes) || maxPayloadBytes <= 0) {
    throw new TaskQueueConfigError("maxPayloadBytes", `must be a positive integer, got ${String(maxPayloadBytes)}.`);
  }
  const logger = options.logger ?? jsonLogger();
  checkTransportOptions(options);
  return { tasks, table, modelName, modelKey, maxPayloadBytes, logger, after: afterOption(options) };
}

/** `after` and `afterBudgetMs`, checked. */
function afterOption(options: TaskQueueOptions<TaskRegistry, string>): ResolvedTaskQueueOptions<TaskRegistry>["after"] {
  const { after, afterBudgetMs } = options;
  if (after === undefined) {
    if (afterBudgetMs !== undefined)
      throw new TaskQueueConfigError("afterBudgetMs", "applies with `after` only: pass taskQueue({ after, afterBudgetMs }), after from next/server.");
    return undefined;
  }
  if (typeof after !== "function") {
    throw new TaskQueueConfigError("after", `must be Next.js's after function (import { after } from "next/server"), got ${valueText(after)}.`);
  }
  const budgetMs = afterBudgetMs ?? 10_000;
  if (typeof budgetMs !== "number" || !Number.isSafeInteger(budgetMs) || budgetMs < MIN_BUDGET_MS || budgetMs > MAX_BUDGET_MS) {
    throw new TaskQueueConfigError("afterBudgetMs", `must be an integer from ${MIN_BUDGET_MS} to ${MAX_BUDGET_MS} ms, got ${valueText(budgetMs)}.`);
  }
  return { run: after, budgetMs };
}

/** Fails early, naming the fix, when the client has no such model or maps it to another table. */
export function checkModel(client: PrismaClientLike, modelName: string, tableName: string): void {
  const models = client._runtimeDataModel?.models;
  if (!models) return; // not inspectable in this Prisma version: the first enqueue will tell
  const model = models[modelName];
  if (!model) {
    throw new TaskQueueConfigError(
      "model",
      `this Prisma client has no model "${modelName}". Add the model from prisma-task-queue/prisma/task.prisma to your schema ` +
        `(npx task-runner init), or pass the name you gave it: taskQueue({ model: "..." }).`,
    );
  }
  const mapped = model.dbName ?? modelName;
  if (mapped !== tableName) {
    throw new TaskQueueConfigError(
      "table",
      `model "${modelName}" maps to table "${mapped}" but taskQueue() was given table "${tableName}". Pass taskQueue({ table: "${mapped}" }).`,
    );
  }
}
