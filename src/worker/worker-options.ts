// The options of createWorker(), with their defaults and trade-offs, and their validation into a resolved form.
// Every check throws TaskQueueConfigError naming the option, the bad value and the fix.

import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { backoffPolicyProblem } from "../backoff.js";
import { checkDirectUrl } from "../direct-url.js";
import { dialectForUrl, notificationUrls } from "../dialects/index.js";
import type { Store } from "../store/store.js";
import { taskTable, type TaskTable } from "../store/task-table.js";
import type { TaskPolicy, TaskRegistry } from "../define-tasks.js";
import type { TaskContext } from "../task-context.js";
import { DEFAULT_QUEUE } from "../enqueue/prepare.js";
import { resolveQueueLimits, type QueueLimitOptions } from "./queue-limits.js";
import type { ClaimLimits } from "../store/queue-controls.js";
import { TaskQueueConfigError } from "../errors.js";
import { jsonLogger, type Logger } from "../logger.js";
import { queueNameProblem } from "../names.js";
import type { NamingOptions, WakeupsChoice } from "../naming-options.js";
import { checkTransportOptions } from "../wakeups/open-transport.js";
import { resolveMetricsOptions, type MetricsAddress, type MetricsOptions } from "../metrics/metrics-options.js";

/** How often a worker polls for due tasks while wake-ups do not reach it, by default (pollIntervalMs). */
export const DEFAULT_POLL_INTERVAL_MS = 1000;

/** Options of createWorker(). */
export interface WorkerOptions<Tasks extends TaskRegistry = TaskRegistry> extends NamingOptions, MetricsOptions {
  /**
   * The registry from defineTasks(). Handlers come from here; a task without a handler is never claimed, so an
   * app may run workers for some tasks and leave others to another deployment.
   */
  tasks: Tasks;
  /**
   * Database URL (postgresql://…). The worker opens (and on stop() closes) a small pool of its own. One of
   * databaseUrl / store is required.
   */
  databaseUrl?: string;
  /**
   * A store to use instead of opening one, e.g. `openStore(url, { table })` shared with a cleaner in the same process.
   * The worker does NOT close a store it was given. One of databaseUrl / store is required; store wins when both are given.
   */
  store?: Store;
  /**
   * With NOTIFY wake-ups (docs/transports.md): the URL of the worker's LISTEN session. Default: directUrl, else
   * databaseUrl (or the store's URL). Behind PgBouncer in transaction mode (`pgbouncer=true` in databaseUrl), where
   * LISTEN does not work, without this or directUrl the worker polls and says so in its log. Ignored by the other
   * transports.
   */
  listenUrl?: string;
  /**
   * PostgreSQL behind PgBouncer in transaction mode (`pgbouncer=true` in databaseUrl): a direct or session-pooled URL of
   * the same database, for the LISTEN session (unless listenUrl is set). Ignored with `store` (pass it to openStore).
   */
  directUrl?: string;
  /**
   * RabbitMQ URL for wake-ups, e.g. amqp://guest:guest@127.0.0.1:5672. Default: none, and the worker LISTENs for NOTIFY
   * wake-ups on PostgreSQL; elsewhere it only polls every pollIntervalMs (tasks still run, but up to one interval late,
   * and every worker adds a query per interval). See `wakeups`.
   */
  amqpUrl?: string;
  /**
   * The app's Prisma client, extended with taskQueue() so handlers can enqueue follow-up tasks (ctx.prisma).
   * Required when a task is `transactional: true` (its handler runs in `prisma.$transaction`). Default: none (ctx.prisma undefined).
   */
  prisma?: unknown;
  /**
   * Task queues to serve. Default: the queues of the tasks that have a handler. Tasks in other queues are never
   * claimed by this worker, even by polling.
   */
  queues?: string[];
  /**
   * Handlers running at once. Default 10. Higher means more throughput for I/O-bound handlers and more database
   * connections used by handlers at once.
   */
  concurrency?: number;
  /**
   * The most tasks claimed beyond `concurrency`, from the wake-ups in hand or by polling, to start as run slots free
   * up. Default 1000.
   * How many the worker really claims ahead follows its pace: about as many as it starts in 100 ms. Fast handlers
   * are then claimed and completed in statements of hundreds of tasks (20,000 no-op tasks: about 70 claims instead of
   * 2,000); slow ones are not hoarded (2 slots of 100 ms handlers hold about 2 tasks ahead), so other workers can take
   * the rest. A task claimed ahead holds its lease (the heartbeat extends it) while it waits here. 0 claims only as
   * many as can run at once. Polling claims again once half of what it claimed ahead has started. A wake-up whose ids
   * find no claim slot for 200 ms is handed back to the queue when another worker consumes it and nothing waits ready
   * there. The RabbitMQ prefetch of each queue is concurrency + claimAhead (at most 65,535): the worker holds at most as
   * many wake-up messages unacknowledged as it may hold tasks claimed, so one-task wake-ups are claimed hundreds per
   * statement; 0 brings it down to concurrency.
   */
  claimAhead?: number;
  /**
   * How long a claim holds before the cleaner may take the task back, in ms. Default 30000; a heartbeat extends it
   * every leaseMs/3 while the handler runs. A short lease recovers tasks of a crashed worker sooner, but a worker
   * that cannot reach the database for longer than it (a long GC pause, a network cut) loses the lease while its
   * handler still runs, so a slow-but-alive task can run twice.
   */
  leaseMs?: number;
  /**
   * Prepare the worker's frequent statements (claim, complete, fail, extend leases) once per connection, so the
   * server parses and plans them once instead of at every call. Default true, and false when the database URL says
   * `pgbouncer=true`. Set false behind another pooler that cannot keep prepared statements across transactions
   * (PgBouncer before 1.21 in transaction mode, say). Ignored with `store`.
   */
  preparedStatements?: boolean;
  /**
   * Commit the completions of tasks that are not `transactional` without waiting for the database to flush them to
   * disk. Default true. A task's run then ends about one disk flush sooner (PostgreSQL: `synchronous_commit = off` in
   * the completion's own transaction; nothing else of the worker or the app changes). Trade-off: a crash of the
   * database server (not of the worker) within about 0.6 s of the completion can undo it; the task is then running
   * again under an expired lease, and the cleaner runs it again, as for a worker killed before it recorded the
   * success. A transactional task's success always commits durably, with the handler's writes. Ignored where the
   * database cannot choose this per transaction (MySQL/MariaDB; SQLite on a WAL file already commits without a flush).
   */
  asyncCompletions?: boolean;
  /**
   * Commit claims without waiting for the database to flush them to disk. Default false. A task starts about one
   * disk flush sooner. Trade-off: a crash of the database server within about 0.6 s of the claim can undo it while the
   * handler runs, so the task can be claimed and run by another worker at the same time (guarantee 5 then no longer
   * holds for it). Ignored where asyncCompletions is.
   */
  asyncClaims?: boolean;
  /**
   * How often to poll the database for due tasks while the broker is unreachable (or without amqpUrl), in ms.
   * Default 1000. Shorter means less delay without the broker, and more queries from every worker.
   */
  pollIntervalMs?: number;
  /**
   * How long stop() waits for running handlers before aborting them, in ms. Default 10000. Handlers still running then
   * are aborted and their tasks go back to pending without using an attempt, so their work may be done twice.
   */
  shutdownGraceMs?: number;
  /**
   * Limits of queues, enforced over every worker by the claim: `{ reports: { concurrency: 5, rateLimit: { starts:
   * 100, perMs: 60000 } } }`. Default: none. Written into the queues' rows in the database when the worker starts
   * (replacing what was there); every worker keeps to those rows, whether or not its own config declares them, and
   * `task-runner limit` changes or lifts them. A task's own limit per key is its definition's `concurrency`.
   * Trade-off: the claims of a limited queue lock its row and go one at a time.
   */
  queueLimits?: Record<string, QueueLimitOptions>;
  /**
   * Delete a task's row when its handler succeeds and returns nothing (undefined or null), instead of keeping it as
   * succeeded until the cleaner prunes it after retentionMs. Default false. A task's own `deleteOnSuccess` wins over
   * this. Saves the database a row version and its index entries per task; the cost is what a kept row gives: the task
   * is gone from `task-runner show`, the dashboard's lists, throughput and "workers seen", and its dedupe key is free
   * again at once (docs/configuration.md, "Delete on success").
   */
  deleteOnSuccess?: boolean;
  /** Written to lease_owner of the tasks this worker claims. Default `${hostname}:${pid}:${random}`. Must be unique per worker. */
  workerId?: string;
  /** Where the worker logs every task state change. Default: JSON lines on stderr, info and above. */
  logger?: Logger;
}

/** A task with a handler, as the worker calls it: the client types of its ctx are the app's business, not the worker's. */
export interface HandledDefinition extends TaskPolicy {
  handler(payload: unknown, ctx: TaskContext<unknown, unknown>): unknown;
  transactional?: boolean;
}

/** The options after defaults and checks. */
export interface ResolvedWorkerOptions {
  tasks: TaskRegistry;
  /** Tasks with a handler, by name. */
  handled: Map<string, HandledDefinition>;
  names: string[];
  queues: string[];
  databaseUrl: string | undefined;
  store: Store | undefined;
  amqpUrl: string | undefined;
  prisma: unknown;
  table: TaskTable;
  /** The broker names and the transport choice, for openTransport(). */
  naming: { amqpPrefix: string | undefined; quorumQueues: boolean; wakeups: WakeupsChoice | undefined };
  listenUrl: string | undefined;
  directUrl: string | undefined;
  concurrency: number;
  claimAhead: number;
  leaseMs: number;
  pollIntervalMs: number;
  /** Undefined: the database URL decides (no prepared statements through `pgbouncer=true`). */
  preparedStatements: boolean | undefined;
  asyncCompletions: boolean;
  asyncClaims: boolean;
  shutdownGraceMs: number;
  /** Delete on success for tasks that do not choose (their own deleteOnSuccess). */
  deleteOnSuccess: boolean;
  workerId: string;
  logger: Logger;
  /** The limited queues served, with their limits (queueLimits and the tasks' concurrency). */
  limits: ClaimLimits;
  /** Where to serve the process's Prometheus metrics while the worker runs; undefined: nowhere. */
  metrics: MetricsAddress | undefined;
}

/** Fills in defaults and checks every option; throws TaskQueueConfigError on the first bad one. */
export function resolveWorkerOptions(options: WorkerOptions): ResolvedWorkerOptions {
  if (typeof options !== "object" || options === null) {
    throw new TaskQueueConfigError("options", "createWorker() takes an object such as { tasks, databaseUrl }.");
  }
  const { tasks } = options;
  if (typeof tasks !== "object" || tasks === null) {
    throw new TaskQueueConfigError("tasks", "pass the registry returned by defineTasks({...}).");
  }
  const handled: ResolvedWorkerOptions["handled"] = new Map();
  for (const [name, definition] of Object.entries(tasks)) {
    if (typeof definition?.handler !== "function") continue;
    const problem = backoffPolicyProblem(definition.backoff);
    if (problem) throw new TaskQueueConfigError("tasks", `task "${name}": ${problem}.`);
    handled.set(name, definition as HandledDefinition);
  }
  if (handled.size === 0) {
    throw new TaskQueueConfigError(
      "tasks",
      `none of the tasks (${
        Object.keys(tasks)
          .map((n) => `"${n}"`)
          .join(", ") || "none"
      }) has a handler, so this worker could run nothing. ` + `Add handler: async (payload, ctx) => {...} to the tasks it should run.`,
    );
  }
  if ("db" in options && (options as { db?: unknown }).db !== undefined) {
    throw new TaskQueueConfigError("db", "the db option was replaced by store: pass databaseUrl, or store: openStore(url, { table }) (see CHANGELOG.md).");
  }
  if (options.store === undefined && options.databaseUrl === undefined) {
    throw new TaskQueueConfigError("databaseUrl", "the worker needs a database: pass databaseUrl (e.g. process.env.DATABASE_URL) or store.");
  }
  if (options.store !== undefined && typeof (options.store as { claimByIds?: unknown }).claimByIds !== "function") {
    throw new TaskQueueConfigError("store", "pass a store made by openStore(url, { table }).");
  }
  if (options.store === undefined) dialectForUrl(options.databaseUrl);
  checkDirectUrl(options.directUrl, options.databaseUrl);
  if (options.listenUrl !== undefined && options.listenUrl !== "" && !dialectForUrl(options.listenUrl, "listenUrl").capabilities.notifications) {
    throw new TaskQueueConfigError("listenUrl", `the NOTIFY listener needs ${notificationUrls()}, the same database as the tasks'.`);
  }
  checkTransportOptions(options);
  const queues = options.queues ?? [...new Set([...handled.values()].map((d) => d.queue ?? DEFAULT_QUEUE))];
  if (!Array.isArray(queues) || queues.length === 0) {
    throw new TaskQueueConfigError("queues", `must be a non-empty array of queue names, got ${JSON.stringify(options.queues)}.`);
  }
  for (const queue of queues) {
    const problem = queueNameProblem(queue);
    if (problem) throw new TaskQueueConfigError("queues", `${problem}.`);
  }
  const transactional = [...handled].filter(([, d]) => d.transactional).map(([name]) => name);
  if (transactional.length > 0 && !hasTransaction(options.prisma)) {
    throw new TaskQueueConfigError(
      "prisma",
      `task ${transactional.map((n) => `"${n}"`).join(", ")} is transactional, so the worker needs your Prisma client: ` +
        `createWorker({ prisma: prisma.$extends(taskQueue({...})), ... }).`,
    );
  }
  const leaseMs = positiveInteger("leaseMs", options.leaseMs, 30_000, 100);
  const workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
  if (typeof workerId !== "string" || workerId.length === 0 || workerId.length > 200) {
    throw new TaskQueueConfigError("workerId", `must be a non-empty string of at most 200 characters, got ${JSON.stringify(workerId)}.`);
  }
  return {
    tasks,
    handled,
    names: [...handled.keys()],
    queues,
    databaseUrl: options.databaseUrl,
    store: options.store,
    amqpUrl: options.amqpUrl,
    prisma: options.prisma,
    table: taskTable(options.table, options.schema),
    naming: { amqpPrefix: options.amqpPrefix, quorumQueues: options.quorumQueues ?? false, wakeups: options.wakeups },
    listenUrl: options.listenUrl,
    directUrl: options.directUrl,
    concurrency: positiveInteger("concurrency", options.concurrency, 10, 1, 10_000),
    claimAhead: positiveInteger("claimAhead", options.claimAhead, 1000, 0, 100_000),
    leaseMs,
    pollIntervalMs: positiveInteger("pollIntervalMs", options.pollIntervalMs, DEFAULT_POLL_INTERVAL_MS, 10),
    preparedStatements: options.preparedStatements === undefined ? undefined : flag("preparedStatements", options.preparedStatements, true),
    asyncCompletions: flag("asyncCompletions", options.asyncCompletions, true),
    asyncClaims: flag("asyncClaims", options.asyncClaims, false),
    shutdownGraceMs: positiveInteger("shutdownGraceMs", options.shutdownGraceMs, 10_000, 0),
    deleteOnSuccess: flag("deleteOnSuccess", options.deleteOnSuccess, false),
    workerId,
    logger: options.logger ?? jsonLogger(),
    limits: resolveQueueLimits(options.queueLimits, tasks, [...handled.keys()], queues),
    metrics: resolveMetricsOptions(options),
  };
}

function flag(option: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== "boolean") throw new TaskQueueConfigError(option, `must be true or false, got ${JSON.stringify(value)}.`);
  return value;
}

function hasTransaction(prisma: unknown): boolean {
  return typeof prisma === "object" && prisma !== null && typeof (prisma as { $transaction?: unknown }).$transaction === "function";
}

function positiveInteger(option: string, value: unknown, fallback: number, min: number, max = 2 ** 31 - 1): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new TaskQueueConfigError(option, `must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}.`);
  }
  return value;
}
