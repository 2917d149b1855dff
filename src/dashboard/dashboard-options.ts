// The options of createDashboard() with their defaults and trade-offs, and their validation into the settings the
// routes use. A bad option throws TaskQueueConfigError naming the option and the fix.

import { resolveSignalOptions, type QueueSignalOptions } from "../scaler/scaler-options.js";
import type { IncomingMessage } from "node:http";
import { TaskQueueConfigError } from "../errors.js";
import { jsonLogger, type Logger } from "../logger.js";
import type { NamingOptions } from "../naming-options.js";
import type { Store } from "../store/store.js";
import { taskTable, type TaskTable } from "../store/task-table.js";

/** What an authorize callback is told about a request besides the request itself. */
export interface AuthorizeContext {
  /** The peer's IP address as the socket reports it (undefined when mounted through fetch() without one). */
  remoteAddress: string | undefined;
  /** True when the peer is this machine and no proxy header says the request came from elsewhere. */
  loopback: boolean;
  /** The Node request, when the dashboard runs as a Node handler (Express: your session and user are on it). */
  incoming?: IncomingMessage;
}

export interface DashboardOptions extends NamingOptions {
  /** Your Prisma client (plain or extended); queries run through `$queryRawUnsafe`. One of prisma, store, databaseUrl. */
  prisma?: unknown;
  /** A store made by openStore(url, { table }); not closed by the dashboard. One of prisma, store, databaseUrl. */
  store?: Store;
  /**
   * Database URL: the dashboard opens its own small pool (4 connections; on PostgreSQL JIT off and a 5 s statement
   * timeout) and closes it in close(). One of prisma, store, databaseUrl.
   */
  databaseUrl?: string;
  /**
   * The URL path the dashboard is served under, e.g. "/admin/tasks". Default "/". Links and cookies are scoped to it;
   * mounted in Express with app.use(basePath, …) it must be the same path.
   */
  basePath?: string;
  /**
   * RabbitMQ URL. When set, tasks that an action makes runnable get a wake-up at once; without it they get one by
   * NOTIFY on PostgreSQL, and elsewhere wait for the cleaner's next sweep (its interval, default 1 s) or a worker's poll.
   */
  amqpUrl?: string;
  /** Hide and refuse every action (retry, cancel, run now). Default false. */
  readOnly?: boolean;
  /**
   * Shared secret. Requests from other machines must send `Authorization: Bearer <token>` or open any page once with
   * `?token=<token>`, which sets an HttpOnly cookie. Requests from this machine pass without it (anyone with a shell
   * here can read the database anyway). Default: none, and then only this machine (or `authorize`) gets in.
   */
  token?: string;
  /**
   * Decides access for every request that does not carry the token, including this machine's: return true to let it
   * in. Use it to reuse your app's login (e.g. check the session on `context.incoming`). Default: none.
   */
  authorize?: (request: Request, context: AuthorizeContext) => boolean | Promise<boolean>;
  /** Where actions and warnings are logged. Default: JSON lines on stderr, info and above. */
  logger?: Logger;
  /**
   * Overview counts per queue, name and status are exact up to this many tasks per group and estimated (from a block
   * sample, shown with "≈") above it. Default 10,000. Higher is more exact and slower on large tables.
   */
  exactCountLimit?: number;
  /**
   * A worker counts as "seen recently" if it holds a running task now, or finished one (succeeded, or failed for good)
   * within this many seconds, as the task's finished_by says. Default 600. A failure that will retry leaves the task
   * pending without a finish time, so a worker whose every run failed and retries shows up only while it runs one.
   */
  workerWindowSeconds?: number;
  /**
   * Due tasks never published for longer than this are flagged: no wake-up was sent (is a cleaner running?).
   * Default 30 seconds.
   */
  unpublishedGraceSeconds?: number;
  /** The cleaners' advisory lock key, when they were given a custom `lockKey`. Default: derived from the table name. */
  cleanerLockKey?: number;
  /**
   * How the overview's scaling signal is read and computed: its window, headroom, drain target and the concurrency of
   * your workers (give it when they run another than the default 10, or the recommendation is off by that factor).
   * Default: every default of queueSignals.
   */
  scalingSignal?: QueueSignalOptions;
}

/** The validated settings. */
export interface DashboardSettings {
  basePath: string;
  table: TaskTable;
  readOnly: boolean;
  token: string | undefined;
  authorize: DashboardOptions["authorize"];
  logger: Logger;
  exactCountLimit: number;
  workerWindowSeconds: number;
  unpublishedGraceSeconds: number;
  cleanerLockKey: number | undefined;
  scalingSignal: QueueSignalOptions;
}

const BASE_PATH = /^(\/[A-Za-z0-9._~-]+)*$/;

/** Validates the options (not the database source: createDashboard does that). */
export function resolveSettings(options: DashboardOptions): DashboardSettings {
  const basePath = normaliseBasePath(options.basePath ?? "/");
  if (options.token !== undefined && (typeof options.token !== "string" || options.token.length < 16)) {
    throw new TaskQueueConfigError("token", "use a random string of at least 16 characters, e.g. `openssl rand -hex 24`.");
  }
  if (options.authorize !== undefined && typeof options.authorize !== "function") {
    throw new TaskQueueConfigError("authorize", `must be a function (request, context) => boolean, got ${typeof options.authorize}.`);
  }
  return {
    basePath,
    table: taskTable(options.table, options.schema),
    readOnly: options.readOnly === true,
    token: options.token,
    authorize: options.authorize,
    logger: options.logger ?? jsonLogger(),
    exactCountLimit: positiveInteger("exactCountLimit", options.exactCountLimit, 10_000),
    workerWindowSeconds: positiveInteger("workerWindowSeconds", options.workerWindowSeconds, 600),
    unpublishedGraceSeconds: positiveInteger("unpublishedGraceSeconds", options.unpublishedGraceSeconds, 30),
    cleanerLockKey: options.cleanerLockKey,
    scalingSignal: checkedSignalOptions(options.scalingSignal),
  };
}

/** The signal's options as given, once checked (a bad one throws TaskQueueConfigError naming it). */
function checkedSignalOptions(options: QueueSignalOptions | undefined): QueueSignalOptions {
  resolveSignalOptions(options);
  return options ?? {};
}

/** "/" → "", "/admin/tasks/" → "/admin/tasks". */
function normaliseBasePath(value: string): string {
  const trimmed = typeof value === "string" ? value.replace(/\/+$/, "") : value;
  if (typeof trimmed !== "string" || !BASE_PATH.test(trimmed)) {
    throw new TaskQueueConfigError(
      "basePath",
      `${JSON.stringify(value)} is not a URL path; use "/" or segments of letters, digits, ".", "_", "~", "-" like "/admin/tasks".`,
    );
  }
  return trimmed;
}

function positiveInteger(option: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) throw new TaskQueueConfigError(option, `must be a positive integer, got ${String(value)}.`);
  return value;
}
