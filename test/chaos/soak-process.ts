// Child-process entry of the soak: a worker or a cleaner (SOAK_ROLE), connected through the test's proxies. With
// SOAK_SERVERLESS=1 a "worker" is a serving process of a deployment with no worker: the cron route's pass,
// runDueTasks(), called every second (at most two at once), is all that runs tasks, recovers leases and fires slots;
// SIGUSR2 turns the passes' sweeps off (the soak's settling: no slot fires any more). Logs JSON lines on stdout;
// SIGTERM stops it gracefully.

import { monitorEventLoopDelay } from "node:perf_hooks";
import { createCleaner } from "../../src/cleaner/create-cleaner.js";
import { createWorker } from "../../src/worker/create-worker.js";
import { errorMessage } from "../../src/error-text.js";
import { jsonLogger, openStore, runDueTasks, taskQueue, type WakeupsChoice } from "../../src/index.js";
import { SOAK_BUSY_MS, soakPrisma } from "./soak-prisma.js";
import { soakQueueLimits, soakTasks } from "./soak-tasks.js";

/** Longer than any soak and its settling: the checker reads every finished task's row, so none may be pruned. */
const SOAK_RETENTION_MS = 24 * 3_600_000;

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`soak-process: ${name} is not set`);
  return value;
};

const role = env("SOAK_ROLE");
const databaseUrl = env("DATABASE_URL");
const amqpUrl = process.env.AMQP_URL || undefined;
const directUrl = process.env.DIRECT_URL || undefined;
const wakeups = (process.env.SOAK_WAKEUPS || undefined) as WakeupsChoice | undefined;
const amqpPrefix = env("SOAK_PREFIX");
const logger = jsonLogger("info", (line) => process.stdout.write(line));
const quorumQueues = process.env.SOAK_QUORUM === "1";
const prisma = soakPrisma(databaseUrl).$extends(taskQueue({ tasks: soakTasks, amqpUrl, amqpPrefix, quorumQueues, wakeups, logger }));
// A store of its own, so that on SQLite its busy timeout is the soak's (the hold-write-lock fault outlasts it).
const store = openStore(databaseUrl, { max: role === "worker" ? 6 : 3, busyTimeoutMs: SOAK_BUSY_MS, applicationName: `soak ${role}`, directUrl });
const common = { tasks: soakTasks, store, amqpUrl, amqpPrefix, quorumQueues, wakeups, prisma, logger };

/** The serverless passes: their budget (the soak's tasks time out at 20 s), how often one starts, how many at once. */
const PASS_BUDGET_MS = 25_000;
const PASS_EVERY_MS = 1_000;
const PASSES_AT_ONCE = 2;

/** A serving process that runs tasks only through cron passes, as the cron route does. */
function cronPasses() {
  const passes = new Set<Promise<void>>();
  let sweep = true;
  let timer: NodeJS.Timeout | undefined;
  process.on("SIGUSR2", () => {
    sweep = false;
    logger.info("cron passes: sweeps off", {});
  });
  const pass = () => {
    if (passes.size >= PASSES_AT_ONCE) return;
    const running = runDueTasks({ tasks: soakTasks, store, prisma, budgetMs: PASS_BUDGET_MS, concurrency: 8, sweep, logger }).then(
      (summary) => logger.info("cron pass", { ...summary }),
      (error: unknown) => logger.warn("cron pass failed", { error: errorMessage(error) }),
    );
    passes.add(running);
    void running.finally(() => passes.delete(running));
  };
  return {
    async start() {
      timer = setInterval(pass, PASS_EVERY_MS);
      pass();
      logger.info("worker started", { serverless: true });
    },
    async stop() {
      clearInterval(timer);
      while (passes.size > 0) await Promise.all([...passes]);
    },
  };
}

const runner =
  role === "worker" && process.env.SOAK_SERVERLESS === "1"
    ? cronPasses()
    : role === "worker"
      ? createWorker({
          ...common,
          concurrency: Number(process.env.SOAK_CONCURRENCY ?? 8),
          leaseMs: Number(env("SOAK_LEASE_MS")),
          pollIntervalMs: 500,
          shutdownGraceMs: 5000,
          workerId: `soak-worker-${process.pid}`,
          queueLimits: soakQueueLimits,
        })
      : createCleaner({ ...common, intervalMs: 300, unpublishedGraceMs: 1500, republishAfterMs: 5000, retentionMs: SOAK_RETENTION_MS });

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await runner.stop();
  await store.close();
  await prisma.$taskQueue.close();
  await prisma.$disconnect();
  process.exit(0);
};
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
await runner.start();

// Every 5 s: how late this process's event loop ran and how much CPU it used, so the soak can tell a starved
// process (a busy machine) from a slow code path.
const delay = monitorEventLoopDelay({ resolution: 20 });
delay.enable();
let cpu = process.cpuUsage();
let at = performance.now();
setInterval(() => {
  const used = process.cpuUsage(cpu);
  const elapsed = performance.now() - at;
  logger.info("soak process stats", {
    role,
    loopDelayMaxMs: Math.round(delay.max / 1e6),
    loopDelayP99Ms: Math.round(delay.percentile(99) / 1e6),
    cpuPercent: Math.round(((used.user + used.system) / 1000 / elapsed) * 100),
  });
  delay.reset();
  cpu = process.cpuUsage();
  at = performance.now();
}, 5000).unref();
