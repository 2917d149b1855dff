// Child-process entry of the step kill test: one worker of the `kill-flow` workflow on the database of KILL_DATABASE_URL,
// given the dialect's Prisma client for its transactional step, logging JSON lines to stdout. With KILL_AT
// ("<point>:<seq>", point one of before, inside, effect, recorded), the process SIGKILLs itself at that boundary of
// that step: before the step is asked for, inside its function before its effect, after its effect and before its
// record, or after the step returned (its record written). SIGTERM stops it gracefully. Run with `node --import tsx`.

import { z } from "zod";
import { createWorker, defineTasks, jsonLogger, silentLogger, taskQueue } from "../../src/index.js";
import type { PrismaClient } from "../generated/client.js";
import { testMysqlPrisma } from "../support/mysql-prisma.js";
import { testPrisma } from "../support/prisma.js";
import { sqlitePrisma } from "../support/sqlite.js";

const env = process.env;
const url = env.KILL_DATABASE_URL!;
const [point, at] = (env.KILL_AT ?? "").split(":");
const killAt = (here: string, seq: number) => {
  if (here === point && String(seq) === at) process.kill(process.pid, "SIGKILL");
};

const base = (url.startsWith("file:") ? sqlitePrisma(url) : url.startsWith("mysql:") ? testMysqlPrisma(url) : testPrisma(url)) as unknown as PrismaClient;

const tasks = defineTasks<PrismaClient>()({
  "kill-flow": {
    payload: z.object({}),
    handler: async (_payload, ctx) => {
      killAt("before", 1);
      // An outside call (its own write, not in the step's transaction), keyed by the step's stable key: at least once.
      await ctx.step.run("outside", async (info) => {
        killAt("inside", 1);
        await ctx.prisma.report.create({ data: { id: crypto.randomUUID(), status: `outside:${info.key}` } });
        killAt("effect", 1);
        return info.key;
      });
      killAt("recorded", 1);
      killAt("before", 2);
      // A write with its record in one transaction: exactly once.
      await ctx.step.transaction("inside", async (tx) => {
        killAt("inside", 2);
        await tx.report.create({ data: { id: crypto.randomUUID(), status: `inside:${ctx.task.id}` } });
        killAt("effect", 2);
        return "written";
      });
      killAt("recorded", 2);
      return ctx.step.run("last", () => 3);
    },
  },
});

const prisma = base.$extends(taskQueue({ tasks, logger: silentLogger }));
const worker = createWorker({
  tasks,
  databaseUrl: url,
  prisma,
  workerId: env.KILL_WORKER,
  leaseMs: Number(env.KILL_LEASE_MS ?? 30_000),
  // Found by polling on every dialect: the test inserts through a store that sends no wake-up.
  wakeups: "polling",
  pollIntervalMs: 50,
  logger: jsonLogger("info", (line) => process.stdout.write(line)),
});

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    void worker.stop().then(async () => {
      await prisma.$taskQueue.close();
      await prisma.$disconnect();
      process.exit(0);
    });
  });
}

await worker.start();
