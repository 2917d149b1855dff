// cronRoute(): a Next.js route handler (app router, Node.js runtime) that is the worker and the cleaner of a
// deployment where no process lives between requests. A scheduler calls it (Vercel Cron sends `Authorization: Bearer
// $CRON_SECRET`; any HTTP ping can send the same header): each call runs runDueTasks() within its budget and answers
// with what it did. A request without the secret is refused before anything touches the database.

import { createHash, timingSafeEqual } from "node:crypto";
import type { TaskRegistry } from "../define-tasks.js";
import { TaskQueueConfigError } from "../errors.js";
import { errorMessage } from "../error-text.js";
import { openStore } from "../open-store.js";
import { runDueTasks, type RunDueTasksOptions } from "../serverless/run-due-tasks.js";
import type { Store } from "../store/store.js";

/** Options of cronRoute(): those of runDueTasks(), and the secret a request must present. */
export interface CronRouteOptions<Tasks extends TaskRegistry = TaskRegistry> extends Omit<RunDueTasksOptions<Tasks>, "store"> {
  /** The secret of `Authorization: Bearer <secret>`. Default: process.env.CRON_SECRET, read at each request. */
  secret?: string;
}

/** A route handler, and close() for the store it keeps between requests (tests, a server's shutdown). */
export type CronRoute = ((request: Request) => Promise<Response>) & { close(): Promise<void> };

/** A route handler: `export const GET = cronRoute({ tasks, databaseUrl, budgetMs: 50_000 })`. */
export function cronRoute<Tasks extends TaskRegistry>(options: CronRouteOptions<Tasks>): CronRoute {
  refuseEdgeRuntime();
  // One store per server process, opened at the first authorised request and kept for the next ones (warm functions).
  let store: Store | undefined;
  const { secret: _secret, ...run } = options;
  const handle = async (request: Request) => {
    const secret = options.secret ?? process.env.CRON_SECRET;
    if (!secret) return json(500, { error: "no secret: set CRON_SECRET in the deployment's environment (or pass cronRoute({ secret }))" });
    if (!authorised(request.headers.get("authorization"), secret)) return json(401, { error: "unauthorised: send Authorization: Bearer <CRON_SECRET>" });
    try {
      store ??= openStore(requiredUrl(options.databaseUrl), { table: options.table, max: 2, directUrl: options.directUrl });
      return json(200, await runDueTasks({ ...run, store }));
    } catch (error) {
      return json(500, { error: errorMessage(error) });
    }
  };
  return Object.assign(handle, {
    close: async () => {
      const open = store;
      store = undefined;
      await open?.close();
    },
  });
}

/** Throws on the edge runtime, where the database drivers cannot run. */
export function refuseEdgeRuntime(): void {
  if (process.env.NEXT_RUNTIME === "edge") {
    throw new TaskQueueConfigError(
      "runtime",
      'prisma-task-queue runs on the Node.js runtime, not the edge runtime: remove `export const runtime = "edge"` from this route (or set it to "nodejs").',
    );
  }
}

/** Compares `Bearer <secret>` in constant time (digests of equal length, whatever the header's length). */
function authorised(header: string | null, secret: string): boolean {
  if (header === null) return false;
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(header), digest(`Bearer ${secret}`));
}

function requiredUrl(url: string | undefined): string {
  const resolved = url ?? process.env.DATABASE_URL;
  if (!resolved) throw new TaskQueueConfigError("databaseUrl", "is required: pass cronRoute({ databaseUrl }) or set DATABASE_URL.");
  return resolved;
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", "cache-control": "no-store" } });
}
