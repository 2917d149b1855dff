// Child of bench/schedule-lateness.ts: a worker and a cleaner in one process, as `task-runner start` runs them, with a
// schedule of one slot a second; each run's slot (its run_at) and start time go to stdout as JSON lines.
// Env: DATABASE_URL, AMQP_URL, PTQ_PREFIX, SCHEDULE_AHEAD_MS, CLEANER_INTERVAL_MS.

import { z } from "zod";
import { createCleaner, createWorker, defineTasks, jsonLogger } from "../../src/index.js";

const env = process.env;
const tasks = defineTasks({
  tick: {
    payload: z.object({}),
    schedules: [{ cron: "* * * * * *" }],
    handler: async (_payload, ctx) => {
      process.stdout.write(`${JSON.stringify({ slot: ctx.task.runAt.getTime(), at: Date.now(), attempt: ctx.attempt })}\n`);
    },
  },
});
const common = { tasks, databaseUrl: env.DATABASE_URL, amqpUrl: env.AMQP_URL || undefined, amqpPrefix: env.PTQ_PREFIX, logger: jsonLogger("warn") };
const worker = createWorker({ ...common, concurrency: 4 });
const cleaner = createCleaner({ ...common, intervalMs: Number(env.CLEANER_INTERVAL_MS ?? 500), scheduleAheadMs: Number(env.SCHEDULE_AHEAD_MS ?? 5000) });
await worker.start();
await cleaner.start();
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
process.on("SIGTERM", () => void Promise.all([worker.stop(), cleaner.stop()]).then(() => process.exit(0)));
