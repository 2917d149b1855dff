// Child-process entry of the soak: a worker or a cleaner (SOAK_ROLE), connected through the test's proxies.
// Logs JSON lines on stdout; SIGTERM stops it gracefully.

import { monitorEventLoopDelay } from "node:perf_hooks";
import { createCleaner } from "../../src/cleaner/create-cleaner.js";
import { createWorker } from "../../src/worker/create-worker.js";
import { jsonLogger, openStore, taskQueue, type WakeupsChoice } from "../../src/index.js";
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

const runner =
  role === "worker"
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
