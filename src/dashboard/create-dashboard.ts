// createDashboard(): the dashboard as a Node request handler (node:http, Express, Next.js pages API routes) that also
// has fetch() for Web-standard hosts (Next.js route handlers) and close() for what it opened.

import type { IncomingMessage, ServerResponse } from "node:http";
import { databaseAdvice } from "../database-advice.js";
import { openStore, prismaStore } from "../dialects/index.js";
import { TaskQueueConfigError, TaskTableUnreadableError } from "../errors.js";
import type { Store } from "../store/store.js";
import { DashboardContext } from "./dashboard-context.js";
import { resolveSettings, type DashboardOptions } from "./dashboard-options.js";
import { getRequestListener } from "./hono.js";
import { dashboardRoutes } from "./routes.js";
import { Wakeups } from "./wakeups.js";

/** The mounted dashboard: call it as `(req, res)` or `(req, res, next)`, or hand it Web requests with fetch(). */
export interface Dashboard {
  /**
   * Node handler. Requests outside `basePath` get 404, or go to `next()` when it is given (Express middleware).
   * Under Express it routes on `req.originalUrl`, so `app.use(basePath, dashboard)` and `app.use(dashboard)` both work.
   */
  (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void): void;
  /**
   * Web-standard handler, e.g. a Next.js App Router route. Without `remoteAddress` a request never counts as this
   * machine's, so it needs the token or `authorize`.
   */
  fetch(request: Request, info?: { remoteAddress?: string }): Promise<Response>;
  /** Reads the task table once; throws an Error that says what to fix when the database or the table is unreachable. */
  check(): Promise<void>;
  /** The path it is mounted under ("" for "/"). */
  readonly basePath: string;
  /** Closes the pool and broker connection it opened itself (never a prisma client or db you passed). */
  close(): Promise<void>;
}

export function createDashboard(options: DashboardOptions): Dashboard {
  const settings = resolveSettings(options);
  if ("db" in options && (options as { db?: unknown }).db !== undefined) {
    throw new TaskQueueConfigError("db", "the db option was replaced by store: pass prisma, databaseUrl, or store: openStore(url, { table }) (see CHANGELOG.md).");
  }
  const sources = [options.prisma, options.store, options.databaseUrl].filter((source) => source !== undefined);
  if (sources.length !== 1) {
    throw new TaskQueueConfigError(
      "prisma",
      sources.length === 0
        ? "the dashboard needs a database: pass prisma (your client), store (openStore(url, { table })) or databaseUrl."
        : "pass only one of prisma, store and databaseUrl.",
    );
  }
  let owned: Store | undefined;
  let store: Store;
  if (options.prisma) store = prismaStore(options.prisma, settings.table);
  else if (options.store) store = options.store;
  else {
    store = owned = openStore(options.databaseUrl!, {
      table: settings.table,
      max: 4,
      applicationName: "prisma-task-queue dashboard",
      statementTimeoutMs: 5000,
    });
  }
  const wakeups = new Wakeups(options, store, settings.logger);
  const app = dashboardRoutes(new DashboardContext(store, settings, wakeups));
  const base = settings.basePath;

  const listener = getRequestListener(
    (request, env) => {
      const incoming = (env as { incoming: IncomingMessage }).incoming;
      return app.fetch(request, { remoteAddress: incoming.socket?.remoteAddress, incoming });
    },
    { overrideGlobalObjects: false },
  );

  const handler = ((req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => {
    const original = (req as IncomingMessage & { originalUrl?: string }).originalUrl;
    if (typeof original === "string") req.url = original;
    const path = (req.url ?? "/").split("?")[0]!;
    if (base && path !== base && !path.startsWith(`${base}/`)) {
      if (next) return next();
      res.statusCode = 404;
      res.end("not found");
      return;
    }
    reuseParsedBody(req);
    listener(req, res).catch((error: unknown) => {
      settings.logger.error("dashboard request failed", { error });
      if (!res.headersSent) res.statusCode = 500;
      res.end();
    });
  }) as Dashboard;

  let closing: Promise<void> | undefined;
  return Object.assign(handler, {
    fetch: (request: Request, info?: { remoteAddress?: string }) => Promise.resolve(app.fetch(request, { remoteAddress: info?.remoteAddress })),
    basePath: base,
    check: async () => {
      const problem = await store.check();
      if (!problem) return;
      const advice = databaseAdvice(problem, { option: "DATABASE_URL", table: settings.table, displayName: store.displayName });
      throw new TaskTableUnreadableError(`${problem.message}; ${advice}.`);
    },
    close: () =>
      (closing ??= (async () => {
        await wakeups.close();
        await owned?.close();
      })()),
  });
}

/**
 * When a body parser (express.urlencoded) already read the form, hand its fields to the dashboard as the raw body
 * (@hono/node-server reads `rawBody`), since the stream is consumed.
 */
function reuseParsedBody(req: IncomingMessage): void {
  const parsed = (req as IncomingMessage & { body?: unknown }).body;
  if (req.method !== "POST" || !req.readableEnded || typeof parsed !== "object" || parsed === null || Buffer.isBuffer(parsed)) return;
  const fields = new URLSearchParams();
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) if (typeof value === "string") fields.set(key, value);
  (req as IncomingMessage & { rawBody?: Buffer }).rawBody = Buffer.from(fields.toString());
  req.headers["content-type"] = "application/x-www-form-urlencoded";
}
