// Child-process entry of the queue-control tests: one worker with the controls' tasks and limits, on a store of its
// own, logging JSON lines to stdout. Run with `node --import tsx`. Env: CONTROL_DATABASE_URL, CONTROL_AMQP_URL,
// CONTROL_PREFIX, CONTROL_WORKER, CONTROL_LOG, CONTROL_LEASE_MS; CONTROL_NO_QUEUE_LIMITS=1 starts it without `queueLimits`
// (a worker of another config, or of a rolling deploy: it must keep to the limits the others wrote all the same).

import { createWorker, jsonLogger, openStore } from "../../src/index.js";
import { controlQueueLimits, controlTasks } from "./limited-tasks.js";

const env = process.env;
const store = openStore(env.CONTROL_DATABASE_URL!, { max: 4 });
const worker = createWorker({
  tasks: controlTasks,
  store,
  amqpUrl: env.CONTROL_AMQP_URL || undefined,
  amqpPrefix: env.CONTROL_PREFIX,
  workerId: env.CONTROL_WORKER,
  concurrency: 4,
  claimAhead: 0,
  leaseMs: Number(env.CONTROL_LEASE_MS ?? 30_000),
  pollIntervalMs: 100,
  queueLimits: env.CONTROL_NO_QUEUE_LIMITS === "1" ? undefined : controlQueueLimits,
  logger: jsonLogger("info", (line) => process.stdout.write(line)),
});

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    void worker.stop().then(async () => {
      await store.close();
      process.exit(0);
    });
  });
}

await worker.start();
