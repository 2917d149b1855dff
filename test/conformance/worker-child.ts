// Child-process entry of the conformance suite: one worker on a store of its own (broken as the bed asks), logging
// JSON lines to stdout; SIGTERM stops it gracefully. Run with `node --import tsx`.
// Env: CONFORMANCE_DATABASE_URL, CONFORMANCE_AMQP_URL, CONFORMANCE_PREFIX, CONFORMANCE_BROKEN, CONFORMANCE_RUN_LOG,
// CONFORMANCE_WORKER, CONFORMANCE_LEASE_MS, CONFORMANCE_CONCURRENCY, CONFORMANCE_WAKEUPS, CONFORMANCE_POLL_MS.

import { createWorker, jsonLogger, openStore } from "../../src/index.js";
import type { WakeupsChoice } from "../../src/naming-options.js";
import { brokenStore, type BrokenKind } from "./broken-stores.js";
import { plainTasks } from "./tasks.js";

const env = process.env;
const real = openStore(env.CONFORMANCE_DATABASE_URL!, { max: 4 });
const store = env.CONFORMANCE_BROKEN ? brokenStore(real, env.CONFORMANCE_BROKEN as BrokenKind) : real;
const worker = createWorker({
  tasks: plainTasks,
  store,
  amqpUrl: env.CONFORMANCE_AMQP_URL || undefined,
  amqpPrefix: env.CONFORMANCE_PREFIX,
  wakeups: (env.CONFORMANCE_WAKEUPS || undefined) as WakeupsChoice | undefined,
  workerId: env.CONFORMANCE_WORKER,
  concurrency: Number(env.CONFORMANCE_CONCURRENCY ?? 5),
  leaseMs: Number(env.CONFORMANCE_LEASE_MS ?? 30_000),
  pollIntervalMs: Number(env.CONFORMANCE_POLL_MS ?? 100),
  logger: jsonLogger("info", (line) => process.stdout.write(line)),
});

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    void worker.stop().then(async () => {
      await real.close();
      process.exit(0);
    });
  });
}

await worker.start();
