// The runner's configuration: `npx task-runner start` loads this file and runs a worker (the generate-report
// handler) and a cleaner (wakes retries when due, recovers crashed runs, prunes old tasks) in one process.

import { defineConfig } from "prisma-task-queue";
import { prisma } from "./src/db";
import { amqpPrefix, amqpUrl, databaseUrl } from "./src/settings";
import { tasks } from "./src/tasks";

export default defineConfig({
  tasks,
  // DATABASE_URL and AMQP_URL override these; the defaults are the local services, as in the app.
  databaseUrl: databaseUrl(),
  amqpUrl: amqpUrl(),
  // Must match the app's taskQueue({ amqpPrefix }): both read AMQP_PREFIX.
  amqpPrefix: amqpPrefix(),
  // generate-report is transactional: the worker runs it inside this client's $transaction. A function, so the
  // runner creates the client only when it runs tasks, and closes it on exit.
  prisma,
  // A retry is woken by the cleaner when it falls due; a sweep every 250 ms (default 1000) makes the half-second
  // backoff visible on the page, at the cost of four cheap indexed queries a second.
  cleaner: { intervalMs: 250 },
});
