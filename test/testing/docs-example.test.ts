// The example of docs/testing.md, run as written there (on SQLite, imports pointed at the sources): keep the two in step.

import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTasks, silentLogger, taskQueue } from "../../src/index.js";
import { inlineQueue, InlineTaskError, recordEnqueues, type EnqueueRecorder, type InlineQueue } from "../../src/testing/index.js";
import { createSqliteDatabase, sqlitePrisma, type SqliteTestDatabase } from "../support/sqlite.js";
import type { PrismaClient } from "../generated-sqlite/client.js";

// --- the app (docs/testing.md, "The app under test") ---

const sendReport = z.object({ reportId: z.string() });
const tasks = defineTasks<PrismaClient>()({
  "send-report": {
    payload: sendReport,
    queue: "reports",
    handler: async ({ reportId }, ctx) => {
      const report = await ctx.prisma.report.findUniqueOrThrow({ where: { id: reportId } });
      if (report.status === "broken") throw new Error(`report ${reportId} cannot be rendered`);
      await ctx.prisma.report.update({ where: { id: reportId }, data: { status: "sent" } });
    },
  },
});

function createPrisma(url: string) {
  return sqlitePrisma(url).$extends(taskQueue({ tasks, logger: silentLogger }));
}
type Prisma = ReturnType<typeof createPrisma>;

class QuotaExceededError extends Error {}

async function requestReport(prisma: Prisma, options: { status?: string; quotaLeft?: number } = {}) {
  return prisma.$transaction(async (tx) => {
    const report = await tx.report.create({ data: { id: randomUUID(), status: options.status ?? "pending" } });
    await tx.task.enqueue("send-report", { reportId: report.id }, { key: `report:${report.id}` });
    if ((options.quotaLeft ?? 1) < 1) throw new QuotaExceededError("no reports left this month"); // rolls back both
    return report;
  });
}

// --- the tests (docs/testing.md, "Assertions" and "Inline mode") ---

let database: SqliteTestDatabase;
let prisma: Prisma;
beforeAll(async () => {
  database = await createSqliteDatabase();
  prisma = createPrisma(database.url);
});
afterAll(async () => {
  await prisma.$taskQueue.close();
  await prisma.$disconnect();
  await database.drop();
});

describe("requestReport (assertions)", () => {
  let enqueued: EnqueueRecorder<typeof tasks>;
  beforeEach(() => {
    enqueued = recordEnqueues<typeof tasks>(prisma);
  });
  afterEach(() => enqueued.stop());

  it("enqueues the report's delivery in its transaction", async () => {
    const report = await requestReport(prisma);
    enqueued.assertEnqueued("send-report", { payload: { reportId: report.id }, queue: "reports", key: `report:${report.id}` });
  });

  it("enqueues nothing when the quota is used up", async () => {
    await expect(requestReport(prisma, { quotaLeft: 0 })).rejects.toThrow(QuotaExceededError);
    enqueued.assertNothingEnqueued();
  });
});

describe("requestReport (inline)", () => {
  let queue: InlineQueue<typeof tasks>;
  beforeEach(async () => {
    queue = await inlineQueue(prisma, { tasks });
  });
  afterEach(() => queue.close());

  it("sends the report", async () => {
    const report = await requestReport(prisma);
    await queue.drain();
    expect(await prisma.report.findUnique({ where: { id: report.id } })).toMatchObject({ status: "sent" });
  });

  it("surfaces the handler's error", async () => {
    const report = await requestReport(prisma, { status: "broken" });
    await expect(queue.drain()).rejects.toThrow(`report ${report.id} cannot be rendered`);
    queue.assertEnqueued("send-report", { payload: { reportId: report.id } });
  });

  it("gives the failed runs, each with what its handler threw", async () => {
    await requestReport(prisma, { status: "broken" });
    const error = await queue.drain().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InlineTaskError);
    const [failure] = (error as InlineTaskError).failures;
    expect(failure).toMatchObject({ name: "send-report", status: "pending", attempt: 1 });
    expect(failure!.error).toBeInstanceOf(Error);
  });
});
