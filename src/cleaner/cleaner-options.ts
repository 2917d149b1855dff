// Options of createCleaner() with their defaults and trade-offs, and their validation into a resolved form.
// A bad option fails at construction with TaskQueueConfigError naming the option and the fix.

import { electionTiming } from "./election-timing.js";
import { dialectForUrl } from "../dialects/index.js";
import { checkDirectUrl } from "../direct-url.js";
import type { Store } from "../store/store.js";
import { taskTable, type TaskTable } from "../store/task-table.js";
import type { TaskRegistry } from "../define-tasks.js";
import { TaskQueueConfigError } from "../errors.js";
import { jsonLogger, type Logger } from "../logger.js";
import type { NamingOptions, WakeupsChoice } from "../naming-options.js";
import { checkTransportOptions } from "../wakeups/open-transport.js";
import { resolveMetricsOptions, type MetricsAddress, type MetricsOptions } from "../metrics/metrics-options.js";

export interface CleanerOptions<Tasks extends TaskRegistry = TaskRegistry> extends NamingOptions, MetricsOptions {
  /** The registry from defineTasks(). The cleaner reads each task's `recovery` policy from it; it runs no handlers. */
  tasks: Tasks;
  /**
   * Database URL (postgresql://…). The cleaner opens a small pool (3 connections) for its sweeps and one dedicated
   * connection for its leader lock, and closes both on stop(). One of databaseUrl / store is required.
   */
  databaseUrl?: string;
  /**
   * A store to sweep through instead of opening one, e.g. `openStore(url, { table })`. Not closed by the cleaner. The
   * leader lock still opens a session of its own, on the store's URL (or its directUrl).
   */
  store?: Store;
  /**
   * PostgreSQL behind PgBouncer in transaction mode (`pgbouncer=true` in databaseUrl): a direct or session-pooled URL of
   * the same database, where the leader lock holds its one session (a session advisory lock cannot live in a
   * transaction-pooled session). Required there; default: databaseUrl. Ignored with `store` (pass it to openStore).
   */
  directUrl?: string;
  /**
   * RabbitMQ URL (amqp:// or amqps://). Default: none, and then the cleaner sends its wake-ups by NOTIFY on PostgreSQL
   * and nothing elsewhere (workers find due tasks by polling), and no dead-letter notifications (they need RabbitMQ).
   * It still recovers leases and prunes. See `wakeups`.
   */
  amqpUrl?: string;
  /** Handed to recovery functions (`ctx.prisma`) so they can enqueue compensating tasks. Default: none. */
  prisma?: unknown;
  /**
   * Time between sweeps, and between a follower's attempts to take the lead. Default 1000 ms. Shorter makes delayed
   * tasks and recoveries more punctual and takeover faster, at the cost of more (cheap, indexed) queries. At most
   * 214,748,364 ms (about 2.5 days): the leader lock's timers and its idle_session_timeout (10 × intervalMs) must stay
   * within 2,147,483,647 ms, the longest a Node.js timer waits and PostgreSQL accepts.
   */
  intervalMs?: number;
  /**
   * How far ahead the leader fires a schedule's slots: each slot due within this window is enqueued at a sweep as a
   * task delayed to the slot's time (still once per slot: the slot's row refuses a second firing), so it starts on time
   * as delayed tasks do, within milliseconds, however the sweeps fall, and also when the leader dies shortly before the
   * slot (its successor takes over within about 3 × intervalMs). Default: 5000 ms or 2 × intervalMs + the takeover
   * time, whichever is longer; 0 fires each slot at the first sweep after it, as late as one interval. A slot fired
   * ahead runs even if its schedule is removed or changed before its time.
   */
  scheduleAheadMs?: number;
  /**
   * A due pending task whose last wake-up is older than this is woken again, provided its queue has consumers and no
   * ready messages (so a backlog or a queue without workers never piles up duplicates). Looked for every
   * republishAfterMs / 4. Default 30000 ms. Shorter recovers lost messages sooner but searches more often (the search
   * reads the pending tasks of each queue); a wake-up that turns out redundant costs a worker one failed claim.
   */
  republishAfterMs?: number;
  /**
   * A task that was due at commit but never marked published is left to the app's after-commit publishing for this
   * long after its creation. Default 2000 ms. Too short sends duplicate wake-ups; too long delays recovery from a
   * failed publish.
   */
  unpublishedGraceMs?: number;
  /**
   * Rows per statement in every step. Default 1000. A step repeats full batches until it runs out of rows or out of
   * one interval's time, so a huge table never means a huge transaction and never stalls the other steps.
   */
  batchSize?: number;
  /**
   * Succeeded, dead and cancelled tasks are deleted this long after they finished. Default 7 days. 0 deletes them
   * at the next sweep (including dead tasks an operator may still want to retry: their dead-letter notification
   * remains).
   */
  retentionMs?: number;
  /**
   * The leader lock's key (PostgreSQL: the advisory lock key) the cleaners compete for. Default: derived from the
   * (schema-qualified) table name, so cleaners of the same table elect one leader and cleaners of different tables do
   * not meet.
   */
  lockKey?: number;
  /** Where the cleaner logs; every task it changes is logged with its id. Default: JSON lines on stderr, info and above. */
  logger?: Logger;
}

/** The options after defaults and validation. */
export interface ResolvedCleanerOptions {
  tasks: TaskRegistry;
  databaseUrl?: string;
  directUrl?: string;
  store?: Store;
  amqpUrl?: string;
  prisma?: unknown;
  table: TaskTable;
  /** The broker names, for openTransport(). */
  naming: { amqpPrefix: string | undefined; quorumQueues: boolean; wakeups: WakeupsChoice | undefined };
  intervalMs: number;
  scheduleAheadMs: number;
  republishAfterMs: number;
  unpublishedGraceMs: number;
  batchSize: number;
  retentionMs: number;
  /** Undefined: the store's default for the table. */
  lockKey: number | undefined;
  logger: Logger;
  /** Where to serve the process's Prometheus metrics while the cleaner runs; undefined: nowhere. */
  metrics: MetricsAddress | undefined;
}

const DAY_MS = 24 * 3600 * 1000;
/** The longest delay setTimeout honours (a longer one fires after 1 ms), and the largest idle_session_timeout PostgreSQL takes. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/**
 * The largest intervalMs whose derived leader-election timings (electionTiming: timers of up to 3 × intervalMs and an
 * idle_session_timeout of 10 × intervalMs) all stay within MAX_TIMER_MS.
 */
export const MAX_INTERVAL_MS = Math.floor(MAX_TIMER_MS / 10);

export function resolveCleanerOptions(options: CleanerOptions): ResolvedCleanerOptions {
  if (typeof options !== "object" || options === null) {
    throw new TaskQueueConfigError("options", "createCleaner() takes an object such as { tasks, databaseUrl, amqpUrl }.");
  }
  if (typeof options.tasks !== "object" || options.tasks === null) {
    throw new TaskQueueConfigError("tasks", "pass the registry returned by defineTasks({...}).");
  }
  if ("db" in options && (options as { db?: unknown }).db !== undefined) {
    throw new TaskQueueConfigError("db", "the db option was replaced by store: pass databaseUrl, or store: openStore(url, { table }) (see CHANGELOG.md).");
  }
  if (options.databaseUrl === undefined && options.store === undefined) {
    throw new TaskQueueConfigError("databaseUrl", "the cleaner needs a database: pass databaseUrl (or store, e.g. openStore(url, { table })).");
  }
  optionalString("databaseUrl", options.databaseUrl);
  if (options.store === undefined) dialectForUrl(options.databaseUrl);
  checkDirectUrl(options.directUrl, options.databaseUrl);
  checkTransportOptions(options);
  const table = taskTable(options.table, options.schema);
  const intervalMs = integer("intervalMs", options.intervalMs, 1000, 1, {
    max: MAX_INTERVAL_MS,
    why: `the leader lock's timers and idle_session_timeout, up to 10 × intervalMs, must fit in ${MAX_TIMER_MS} ms`,
  });
  return {
    tasks: options.tasks,
    databaseUrl: options.databaseUrl,
    directUrl: options.directUrl,
    store: options.store,
    amqpUrl: options.amqpUrl,
    prisma: options.prisma,
    table,
    naming: { amqpPrefix: options.amqpPrefix, quorumQueues: options.quorumQueues ?? false, wakeups: options.wakeups },
    intervalMs,
    scheduleAheadMs: integer("scheduleAheadMs", options.scheduleAheadMs, defaultScheduleAheadMs(intervalMs), 0, {
      max: DAY_MS,
      why: "a slot fired ahead is a task already enqueued: a day at most",
    }),
    republishAfterMs: integer("republishAfterMs", options.republishAfterMs, 30_000, 0),
    unpublishedGraceMs: integer("unpublishedGraceMs", options.unpublishedGraceMs, 2000, 0),
    batchSize: integer("batchSize", options.batchSize, 1000, 1),
    retentionMs: integer("retentionMs", options.retentionMs, 7 * DAY_MS, 0),
    lockKey: options.lockKey === undefined ? undefined : integer("lockKey", options.lockKey, 0, Number.MIN_SAFE_INTEGER),
    logger: options.logger ?? jsonLogger(),
    metrics: resolveMetricsOptions(options),
  };
}

/** Two sweeps and a leader's takeover (electionTiming's answer timeout), at least 5 s. */
function defaultScheduleAheadMs(intervalMs: number): number {
  return Math.min(DAY_MS, Math.max(5000, 2 * intervalMs + electionTiming(intervalMs).answerTimeoutMs));
}

function integer(option: string, value: unknown, fallback: number, min: number, upper?: { max: number; why: string }): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || (upper !== undefined && value > upper.max)) {
    const range = upper === undefined ? `of at least ${min}` : `from ${min} to ${upper.max} (${upper.why})`;
    throw new TaskQueueConfigError(option, `must be an integer ${range}, got ${JSON.stringify(value)}.`);
  }
  return value;
}

function optionalString(option: string, value: unknown): void {
  if (value !== undefined && (typeof value !== "string" || value.length === 0)) {
    throw new TaskQueueConfigError(option, `must be a non-empty URL string, got ${JSON.stringify(value)}.`);
  }
}
