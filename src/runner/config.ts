// The runner's configuration file: defineConfig() for `task-runner.config.ts`, and the type of what it holds.
// Loading and checking the file lives in load-config.ts.

import type { CleanerOptions } from "../cleaner/cleaner-options.js";
import type { TaskRegistry } from "../define-tasks.js";
import type { Logger } from "../logger.js";
import type { WorkerOptions } from "../worker/worker-options.js";
import type { NamingOptions } from "../naming-options.js";

/** Options every part shares, set once at the top of the config. */
type SharedKeys = "tasks" | "databaseUrl" | "directUrl" | "db" | "amqpUrl" | "prisma" | "table" | "schema" | "amqpPrefix" | "quorumQueues" | "wakeups" | "logger";

/** Worker options of the config (`worker: {...}`): concurrency, claimAhead, queues, leaseMs, pollIntervalMs, shutdownGraceMs, workerId, listenUrl, asyncCompletions, asyncClaims. */
export type RunnerWorkerOptions = Partial<Omit<WorkerOptions, SharedKeys>>;

/** Cleaner options of the config (`cleaner: {...}`): intervalMs, republishAfterMs, retentionMs, batchSize, … */
export type RunnerCleanerOptions = Partial<Omit<CleanerOptions, SharedKeys>>;

/** What `task-runner.config.ts` exports by default. */
export interface RunnerConfig<Tasks extends TaskRegistry = TaskRegistry> extends NamingOptions {
  /** The registry from defineTasks(): the handlers the worker runs and the recovery policies the cleaner applies. */
  tasks: Tasks;
  /** PostgreSQL URL. Overridden by the DATABASE_URL environment variable, which --database-url overrides. */
  databaseUrl?: string;
  /**
   * PostgreSQL behind PgBouncer in transaction mode (`pgbouncer=true` in databaseUrl): a direct or session-pooled URL of
   * the same database, for what needs a session of its own: the cleaners' leader lock, the workers' LISTEN and
   * `task-runner migrate`. Overridden by DIRECT_URL (the name Prisma's docs use for it), which --direct-url overrides.
   */
  directUrl?: string;
  /**
   * RabbitMQ URL. Overridden by AMQP_URL, which --amqp-url overrides. Default: none: wake-ups go by NOTIFY on
   * PostgreSQL; elsewhere workers poll the database, so tasks run up to a poll interval late. See `wakeups`.
   */
  amqpUrl?: string;
  /**
   * Your Prisma client extended with taskQueue(), or a function that creates it. Handlers get it as ctx.prisma (and
   * transactional tasks need it); recovery functions get it to enqueue compensating tasks. Prefer the function: the
   * commands that never run tasks (status, retry, cancel) then never create a client. The runner closes it on exit.
   */
  prisma?: unknown;
  /** Options of the worker started by `task-runner worker` and `start`. */
  worker?: RunnerWorkerOptions;
  /** Options of the cleaner started by `task-runner cleaner` and `start`. */
  cleaner?: RunnerCleanerOptions;
  /** Logger for the worker and the cleaner. Default: one line per event, human-readable on a TTY, JSON lines otherwise. */
  logger?: Logger;
}

/** Types a config; `export default defineConfig({ tasks, ... })` in task-runner.config.ts. Checks happen when it is loaded. */
export function defineConfig<const Tasks extends TaskRegistry>(config: RunnerConfig<Tasks>): RunnerConfig<Tasks> {
  return config;
}
