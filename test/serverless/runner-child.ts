// Child process of the task-runner tests: what a Next.js server's instrumentation.ts register() does, twice (a route
// module importing it again), on RUNNER_DATABASE_URL with the local RabbitMQ; logs JSON lines to stdout.

import { jsonLogger } from "../../src/index.js";
import { startTaskRunner } from "../../src/next/index.js";
import { runnerTasks } from "./runner-tasks.js";

const env = process.env;
const logger = jsonLogger("info", (line) => process.stdout.write(line));

const options = {
  tasks: runnerTasks,
  databaseUrl: env.RUNNER_DATABASE_URL!,
  amqpUrl: env.RUNNER_AMQP_URL,
  amqpPrefix: env.RUNNER_PREFIX,
  logger,
  shutdownGraceMs: 30_000,
};
const [first, second] = await Promise.all([startTaskRunner(options), startTaskRunner(options)]);
logger.info("runner ready", { same: first === second, worker: first?.worker.id });
