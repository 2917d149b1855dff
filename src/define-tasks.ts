// The task registry: maps each task name to its zod payload schema, handler and policy.
// Enqueue is type-checked against it; the worker looks handlers and policies up in it.

import type { input as ZodInput, output as ZodOutput, ZodType } from "zod";
import { backoffPolicyProblem } from "./backoff.js";
import { TaskDefinitionError } from "./errors.js";
import type { Logger } from "./logger.js";
import { queueNameProblem, taskNameProblem } from "./names.js";
import type { TaskRecord } from "./store/task-record.js";
import type { ClientWith, TaskContext, TransactionClientOf, UntypedClient } from "./task-context.js";
// Types only, erased at run time: the handlers' ctx carries the enqueue methods of the registry they belong to.
import type { TaskModelMethods } from "./extension/enqueue-methods.js";
import type { SignalMethod } from "./extension/signal-method.js";
import { valueText } from "./value-text.js";
import type { TaskSchedule } from "./schedules/task-schedule.js";
import { taskSchedules } from "./schedules/task-schedule.js";
import { MAX_CONCURRENCY_LIMIT } from "./store/queue-controls.js";

export type { TaskRecord } from "./store/task-record.js";
export type { TaskStatus } from "./store/task-status.js";

/** Exponential backoff with jitter: delay = min(maxMs, baseMs * factor^(attempt-1)) * (1 ± jitter). */
export interface BackoffPolicy {
  /** Delay before the first retry. Default 1000 ms. */
  baseMs?: number;
  /** Growth per attempt. Default 2. */
  factor?: number;
  /** Upper bound of a delay. Default 1 hour. */
  maxMs?: number;
  /** Fraction of random spread around the delay, 0 to 1. Default 0.2. */
  jitter?: number;
}

/**
 * At most `limit` tasks of this name running at once over every worker, per concurrency key when `key` is given (one per
 * account: `{ limit: 1, key: (p) => p.accountId }`). Enforced by the claim, which counts the running tasks of the group
 * under the queue's lock; a task that does not fit stays pending and runs when a slot frees.
 */
export interface TaskConcurrency<Payload = unknown> {
  /** Tasks of one group (this name and key) running at once, 1 to 1,000,000. */
  limit: number;
  /**
   * The group of a task, computed at enqueue from its validated payload and stored with it (non-empty, at most 200
   * characters). Default: none, so `limit` holds for every task of this name together.
   */
  key?: (payload: Payload) => string;
}

/**
 * Called by the cleaner for a task whose lease expired; may enqueue a compensating task through `prisma` (the
 * cleaner's `prisma` option, typed like a handler's ctx.prisma; undefined at run time when the cleaner has none).
 */
export type RecoveryFunction<Prisma = UntypedClient> = (task: TaskRecord, ctx: { prisma: Prisma; logger: Logger }) => Promise<"retry" | "dead"> | "retry" | "dead";

/** What every task definition has, whatever its handler. */
export interface TaskPolicy<Schema extends ZodType = ZodType, Prisma = UntypedClient> {
  /** zod schema of the payload; enqueue validates against it before writing, the worker again before running. */
  payload: Schema;
  /** RabbitMQ queue (and worker pool) the task goes to. Default "default". */
  queue?: string;
  /** Runs before the task goes dead, 1 to 2,147,483,647. Default 5. Overridable per enqueue. */
  maxAttempts?: number;
  /** Default priority, -2,147,483,647 to 2,147,483,647; higher runs first among due tasks of a queue. Default 0. */
  priority?: number;
  /**
   * Handler time limit; past it the signal aborts and the run counts as a failure. Default 60000 ms. At most
   * 2,147,483,647 ms (about 24.8 days; 5 s less for a transactional task), the longest a Node.js timer waits.
   */
  timeoutMs?: number;
  /** Retry delays. Defaults: see BackoffPolicy. Checked by defineTasks() and again by createWorker(). */
  backoff?: BackoffPolicy;
  /** What the cleaner does with a task whose worker vanished: "retry" (default), "dead", or a function. */
  recovery?: "retry" | "dead" | RecoveryFunction<Prisma>;
  /**
   * Recurring runs: the leading cleaner enqueues this task at each slot of each schedule, exactly once per slot
   * whatever the number of cleaners. See TaskSchedule; each is checked by defineTasks (expression, time zone, payload).
   */
  schedules?: ReadonlyArray<TaskSchedule<ZodInput<Schema>>>;
  /**
   * At most this many of these tasks running at once over every worker (per concurrency key with `key`). Default: no
   * limit. Trade-off: a claim of a queue with a limited task locks the queue's row, so its claims go one at a time.
   */
  concurrency?: TaskConcurrency<ZodOutput<Schema>>;
  /**
   * Delete the task's row when its handler succeeds and returns nothing (undefined or null), in the statement (or, for
   * a transactional task, the transaction) that would mark it succeeded. Default: the worker's `deleteOnSuccess`
   * (false). A task that returns a result keeps its row. Trade-off: once deleted, the task is gone from `show`, the
   * dashboard and throughput, and its dedupe key is free again (see docs/configuration.md, "Delete on success").
   */
  deleteOnSuccess?: boolean;
}

/** A task whose handler runs outside any transaction (the default): its ctx.tx is undefined. */
export interface PlainTaskDefinition<Schema extends ZodType = ZodType, Prisma = UntypedClient, Tx = TransactionClientOf<Prisma>> extends TaskPolicy<Schema, Prisma> {
  /** Runs the task. Optional so that an app that only enqueues can share the registry without the handlers. */
  handler?(payload: ZodOutput<Schema>, ctx: TaskContext<Prisma, undefined, Tx>): unknown;
  /** Run the handler inside the transaction that completes the task (exactly-once database effects). Default false. */
  transactional?: false;
}

/** A task whose handler runs inside the transaction that marks it succeeded: its ctx.tx is that transaction. */
export interface TransactionalTaskDefinition<Schema extends ZodType = ZodType, Prisma = UntypedClient, Tx = TransactionClientOf<Prisma>> extends TaskPolicy<
  Schema,
  Prisma
> {
  /** Runs the task; its writes through ctx.tx commit only if the task completes. Optional, as for a plain task. */
  handler?(payload: ZodOutput<Schema>, ctx: TaskContext<Prisma, Tx, Tx>): unknown;
  /**
   * Run the handler inside the transaction that completes the task (exactly-once database effects). Written as the
   * literal `true`: a `boolean` variable matches neither kind of definition, and the handler's ctx is then untyped.
   */
  transactional: true;
}

/**
 * One task: its payload schema, its handler and its policy. `Prisma` and `Tx` type the handler's ctx.prisma and
 * ctx.tx (defineTasks fills them in); `transactional: true` decides whether ctx.tx is a transaction or undefined.
 */
export type TaskDefinition<Schema extends ZodType = ZodType, Prisma = UntypedClient, Tx = TransactionClientOf<Prisma>> =
  PlainTaskDefinition<Schema, Prisma, Tx> | TransactionalTaskDefinition<Schema, Prisma, Tx>;

/** A registry as returned by defineTasks, whatever client its handlers are typed with (hence `any`, in this constraint only). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- handlers take the client as a parameter, so no narrower type accepts them all
export type TaskRegistry = Record<string, TaskDefinition<ZodType, any, any>>;

/** The input type of a task's payload (what enqueue accepts). */
export type PayloadInput<Tasks extends TaskRegistry, Name extends keyof Tasks> = ZodInput<Tasks[Name]["payload"]>;

/** Every registered task name. */
export type TaskName<Tasks extends TaskRegistry> = keyof Tasks & string;

/** The registry's enqueue methods on the model `Model` (as taskQueue({ model }) adds them), for the handlers' ctx. */
type EnqueueOn<Schemas extends Record<string, ZodType>, Client, Model extends string> = {
  [Key in Uncapitalize<Model>]: TaskModelMethods<TaskDefinitions<Schemas, Client, Model>> & SignalMethod;
};

/** The definitions of a registry, their handlers' ctx typed by the base client `Client`. */
export type TaskDefinitions<Schemas extends Record<string, ZodType>, Client = UntypedClient, Model extends string = "Task"> = {
  [Name in keyof Schemas]: TaskDefinition<
    Schemas[Name],
    ClientWith<Client, EnqueueOn<Schemas, Client, Model>>,
    TransactionClientOf<Client> & EnqueueOn<Schemas, Client, Model>
  >;
};

/**
 * Declares the tasks of an app, with the handlers' ctx.prisma and ctx.tx typed by your Prisma client:
 * `defineTasks<PrismaClient>()({ … })`. Pass the BASE client type (the generated `PrismaClient`, or
 * `typeof basePrisma`), not the one extended with taskQueue(): that one's type depends on these tasks. `Model` is
 * the task model's name when you pass taskQueue({ model }). Default "Task".
 */
export function defineTasks<Client extends object, Model extends string = "Task">(): <const Schemas extends Record<string, ZodType>>(
  tasks: TaskDefinitions<Schemas, Client, Model>,
) => TaskDefinitions<Schemas, Client, Model>;
/**
 * Declares the tasks of an app. Checks every definition now, so a typo fails at startup, not at 3 a.m.
 * The returned registry is the same object, frozen, with its types kept for enqueue. Without a client type the
 * handlers' ctx.prisma and ctx.tx offer only raw statements and enqueue (UntypedClient); see the overload above.
 */
export function defineTasks<const Schemas extends Record<string, ZodType>>(tasks: TaskDefinitions<Schemas>): TaskDefinitions<Schemas>;
export function defineTasks(...args: unknown[]): unknown {
  if (args.length === 0) return checkedTasks;
  return checkedTasks(args[0]);
}

function checkedTasks<Tasks>(tasks: Tasks): Tasks {
  if (typeof tasks !== "object" || tasks === null) {
    throw new TaskDefinitionError(String(tasks), "defineTasks() takes an object that maps task names to definitions.");
  }
  for (const [name, definition] of Object.entries(tasks as Record<string, TaskDefinition>)) {
    checkDefinition(name, definition);
  }
  return Object.freeze(tasks);
}

function checkDefinition(name: string, definition: TaskDefinition): void {
  const nameProblem = taskNameProblem(name);
  if (nameProblem) throw new TaskDefinitionError(name, `${nameProblem}.`);
  if (typeof definition !== "object" || definition === null) {
    throw new TaskDefinitionError(name, "the definition must be an object with at least a `payload` zod schema.");
  }
  if (typeof (definition.payload as { safeParse?: unknown } | undefined)?.safeParse !== "function") {
    throw new TaskDefinitionError(name, "`payload` must be a zod schema, for example z.object({ id: z.string() }).");
  }
  if (definition.handler !== undefined && typeof definition.handler !== "function") {
    throw new TaskDefinitionError(name, "`handler` must be a function (payload, ctx) => result.");
  }
  if (definition.queue !== undefined) {
    const problem = queueNameProblem(definition.queue);
    if (problem) throw new TaskDefinitionError(name, `queue ${problem}.`);
  }
  integerInRange(name, "maxAttempts", definition.maxAttempts, 1, INT4_MAX, "enqueue writes it to an INTEGER column");
  integerInRange(name, "priority", definition.priority, -INT4_MAX, INT4_MAX, "enqueue writes it to an INTEGER column");
  if (definition.transactional) {
    const why = `the Prisma transaction of a transactional task gets timeoutMs + ${TRANSACTION_TIMEOUT_EXTRA_MS} ms, and a Node.js timer waits at most ${MAX_TIMER_MS} ms`;
    integerInRange(name, "timeoutMs", definition.timeoutMs, 1, MAX_TIMER_MS - TRANSACTION_TIMEOUT_EXTRA_MS, why);
  } else {
    integerInRange(name, "timeoutMs", definition.timeoutMs, 1, MAX_TIMER_MS, "a Node.js timer waits at most that long; a longer one fires at once");
  }
  const backoffProblem = backoffPolicyProblem(definition.backoff);
  if (backoffProblem) throw new TaskDefinitionError(name, `${backoffProblem}.`);
  taskSchedules(name, definition);
  checkConcurrency(name, definition.concurrency);
  if (definition.deleteOnSuccess !== undefined && typeof definition.deleteOnSuccess !== "boolean") {
    throw new TaskDefinitionError(name, `deleteOnSuccess must be true or false, got ${valueText(definition.deleteOnSuccess)}.`);
  }
  const recovery = definition.recovery;
  if (recovery !== undefined && recovery !== "retry" && recovery !== "dead" && typeof recovery !== "function") {
    throw new TaskDefinitionError(name, `recovery must be "retry", "dead" or a function, got ${JSON.stringify(recovery)}.`);
  }
}

function checkConcurrency(task: string, concurrency: unknown): void {
  if (concurrency === undefined) return;
  if (typeof concurrency !== "object" || concurrency === null) {
    throw new TaskDefinitionError(task, `concurrency must be an object such as { limit: 1, key: (payload) => payload.accountId }, got ${valueText(concurrency)}.`);
  }
  const { limit, key } = concurrency as { limit?: unknown; key?: unknown };
  integerInRange(task, "concurrency.limit", limit, 1, MAX_CONCURRENCY_LIMIT, "the most tasks of one group running at once");
  if (limit === undefined) throw new TaskDefinitionError(task, "concurrency.limit is required: the most tasks of one group running at once, e.g. { limit: 1 }.");
  if (key !== undefined && typeof key !== "function") {
    throw new TaskDefinitionError(task, `concurrency.key must be a function (payload) => string, got ${valueText(key)}.`);
  }
}

/** The bounds enqueue applies to maxAttempts and priority (prepareTask in enqueue/prepare.ts): the columns are INTEGER. */
const INT4_MAX = 2 ** 31 - 1;
/** The longest delay setTimeout honours; Node.js turns a longer one into 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** What the worker adds to timeoutMs for the Prisma transaction of a transactional task (runInTransaction in worker/task-run.ts). */
const TRANSACTION_TIMEOUT_EXTRA_MS = 5000;

function integerInRange(task: string, option: string, value: unknown, min: number, max: number, why: string): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max)) {
    throw new TaskDefinitionError(task, `${option} must be an integer from ${min} to ${max} (${why}), got ${valueText(value)}.`);
  }
}
