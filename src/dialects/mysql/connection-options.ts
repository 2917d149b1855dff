// Turns a mysql:// or mariadb:// URL and the store's options into the mariadb driver's pool settings. Query
// parameters of the URL are the driver's own options (ssl, sessionVariables, …), so anything the driver can do stays
// reachable without a new option here.

import type { ConnectionConfig, PoolConfig } from "mariadb";
import { TaskQueueConfigError } from "../../errors.js";
import { redactUrl } from "../../redact-url.js";

/** What the store asks of its own connections (see OpenStoreOptions for the meaning of each). */
export interface MysqlPoolOptions {
  /** Most connections. Default 10. */
  max?: number;
  /** Sent as the connection attribute program_name (performance_schema.session_connect_attrs). Default "prisma-task-queue". */
  applicationName?: string;
  /** Give up opening a connection (or waiting for a free one) after this long, in ms. Default 10000. */
  connectTimeoutMs?: number;
  /**
   * Close a connection that stays silent this long while a statement runs, in ms. Default 60000. It ends the wait on a
   * half-open connection (its peer vanished without a reset), which TCP alone may not notice for minutes; it must
   * exceed the server's innodb_lock_wait_timeout (50 s by default), or a statement waiting for a row lock is cut.
   */
  queryTimeoutMs?: number;
}

/**
 * The pool settings for `url`. The URL's own initSql and sessionVariables pass to the driver as given; the store adds no
 * init statement of its own (see READ_COMMITTED in own-db.ts for why).
 */
export function poolConfig(url: string, options: MysqlPoolOptions): PoolConfig {
  const connection = connectionConfig(url, options);
  return {
    ...connection,
    connectionLimit: options.max ?? 10,
    // One connection waits ready; more open on demand up to the limit and close after a minute idle. (The driver's pool
    // never opens a connection with minimumIdle 0.)
    minimumIdle: 1,
    idleTimeout: 60,
    acquireTimeout: connection.connectTimeout,
  };
}

/** The settings of one connection to `url` (the pool's, without the pool's own). */
export function connectionConfig(url: string, options: Omit<MysqlPoolOptions, "max">): ConnectionConfig {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TaskQueueConfigError("databaseUrl", `${JSON.stringify(redactUrl(url))} is not a URL; use mysql://user:password@host:3306/database.`);
  }
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ""));
  if (database === "") {
    throw new TaskQueueConfigError("databaseUrl", `${JSON.stringify(redactUrl(url))} names no database; add it as the path: mysql://user:password@host:3306/app.`);
  }
  return {
    ...urlOptions(parsed.searchParams),
    host: parsed.hostname.replace(/^\[(.*)\]$/, "$1") || "localhost",
    port: parsed.port ? Number(parsed.port) : 3306,
    user: parsed.username ? decodeURIComponent(parsed.username) : undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    database,
    connectTimeout: options.connectTimeoutMs ?? 10_000,
    socketTimeout: options.queryTimeoutMs ?? 60_000,
    keepAliveDelay: 10_000,
    connectAttributes: { program_name: options.applicationName ?? "prisma-task-queue" },
  };
}

/** The URL's query parameters as driver options: "true"/"false" and integers typed, JSON objects parsed. */
function urlOptions(params: URLSearchParams): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const [key, value] of params) {
    if (key === "socket")
      options.socketPath = value; // Prisma's name for it
    else if (value === "true" || value === "false") options[key] = value === "true";
    else if (/^\d+$/.test(value)) options[key] = Number(value);
    else if (/^\s*\{/.test(value)) options[key] = parseObject(key, value);
    else options[key] = value;
  }
  return options;
}

function parseObject(key: string, value: string): unknown {
  try {
    return JSON.parse(value);
  } catch (error) {
    throw new TaskQueueConfigError("databaseUrl", `the URL parameter ${key} is not valid JSON (${(error as Error).message}).`);
  }
}
