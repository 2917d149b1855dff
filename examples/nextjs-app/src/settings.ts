// The example's settings, read from the environment in one place: connection URLs (else the local services),
// the broker prefix, the app's own URL (the worker calls its flaky endpoint), how often that endpoint fails, and what
// runs the tasks.

/** PostgreSQL. Default: the local server, database prisma_task_queue_example (db:setup creates it). */
export function databaseUrl(): string {
  return process.env.DATABASE_URL || "postgresql://postgres@127.0.0.1:5432/prisma_task_queue_example";
}

/** RabbitMQ, for the wake-ups. Default: the local broker as guest. */
export function amqpUrl(): string {
  return process.env.AMQP_URL || "amqp://guest:guest@127.0.0.1:5672";
}

/**
 * Prefix of the exchange and queues on the broker. Default "nextjs_example". The app and the runner must agree;
 * the end-to-end test gives each run its own, so that no other worker on the same broker sees its wake-ups.
 */
export function amqpPrefix(): string {
  return process.env.AMQP_PREFIX || "nextjs_example";
}

/** Where the worker reaches the app's "third-party" endpoint. Default http://127.0.0.1:3000 (next dev / next start). */
export function appUrl(): string {
  return (process.env.APP_URL || `http://127.0.0.1:${process.env.PORT || 3000}`).replace(/\/$/, "");
}

/** How many calls per report the flaky endpoint fails before it answers. Default 2, so a report is done at attempt 3. */
export function flakyFailures(): number {
  const raw = process.env.FLAKY_FAILURES;
  if (raw === undefined || raw === "") return 2;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new Error(`FLAKY_FAILURES must be a whole number of failures (0 or more), got ${JSON.stringify(raw)}.`);
  }
  return value;
}

/**
 * What runs the tasks (TASK_MODE):
 * - "runner" (default): `npx task-runner start`, a process of its own beside the app;
 * - "serverless": no process between requests: the request that enqueued a task runs it after its response (`after()`),
 *   and a scheduler calling GET /api/tasks/cron (with `Authorization: Bearer $CRON_SECRET`) runs the rest;
 * - "self-hosted": the worker and the cleaner inside the `next start` process, started by instrumentation.ts.
 */
export type TaskMode = "runner" | "serverless" | "self-hosted";

export function taskMode(): TaskMode {
  const raw = process.env.TASK_MODE || "runner";
  if (raw === "runner" || raw === "serverless" || raw === "self-hosted") return raw;
  throw new Error(`TASK_MODE must be "runner", "serverless" or "self-hosted", got ${JSON.stringify(raw)}.`);
}
