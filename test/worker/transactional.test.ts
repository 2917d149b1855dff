// Transactional handlers: their writes commit in the transaction that marks the task succeeded, and roll back
// when the lease is stolen mid-run or the handler fails.

import { afterAll, beforeAll, expect, it } from "vitest";
import { z } from "zod";
import { defineTasks } from "../../src/index.js";
import type { PrismaClient } from "../generated/client.js";
import { type Worker } from "../../src/worker/create-worker.js";
import { waitUntil } from "../support/wait.js";
import { recordingLogger, WorkerTestBed } from "./harness.js";

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
const wrote = deferred();
const proceed = deferred();

const tasks = defineTasks<PrismaClient>()({
  "write-report": {
    payload: z.object({ reportId: z.string().uuid() }),
    transactional: true,
    handler: async ({ reportId }, ctx) => {
      await ctx.tx.report.create({ data: { id: reportId, status: "done" } });
      const next = await ctx.tx.task.enqueue("after-report", { reportId });
      await new Promise((resolve) => setTimeout(resolve, 250));
      return { followUp: next.id };
    },
  },
  "after-report": {
    payload: z.object({ reportId: z.string().uuid() }),
    handler: async ({ reportId }) => ({ saw: reportId }),
  },
  "stolen-midway": {
    payload: z.object({ reportId: z.string().uuid() }),
    transactional: true,
    handler: async ({ reportId }, ctx) => {
      await ctx.tx.report.create({ data: { id: reportId } });
      wrote.resolve();
      await proceed.promise;
      return "finished";
    },
  },
  "fails-after-writing": {
    payload: z.object({ reportId: z.string().uuid() }),
    transactional: true,
    backoff: { baseMs: 60_000 },
    handler: async ({ reportId }, ctx) => {
      await ctx.tx.report.create({ data: { id: reportId } });
      throw new Error("business rule broken after the write");
    },
  },
});

let bed: WorkerTestBed;
let prisma: ReturnType<WorkerTestBed["prisma"]>;
let worker: Worker;
const logger = recordingLogger();

beforeAll(async () => {
  bed = await WorkerTestBed.create();
  prisma = bed.prisma(tasks);
  worker = await bed.startWorker({ tasks, prisma, logger });
});

afterAll(async () => {
  proceed.resolve();
  await bed?.closeAll();
});

async function reportExists(id: string): Promise<boolean> {
  return (await bed.sql.query("SELECT 1 FROM reports WHERE id = $1", [id])).rowCount === 1;
}

it("commits the handler's writes (and its follow-up task) with the success", async () => {
  const reportId = crypto.randomUUID();
  const task = await prisma.task.enqueue("write-report", { reportId });
  await waitUntil(async () => (await bed.status(task.id)) === "succeeded", "the task to succeed");
  expect(await reportExists(reportId)).toBe(true);
  // finished_at is when the task really finished, not when its transaction began (the report's created_at).
  const { rows } = await bed.sql.query(
    "SELECT extract(epoch FROM t.finished_at - r.created_at) * 1000 AS ms FROM tasks t, reports r WHERE t.id = $1 AND r.id = $2",
    [task.id, reportId],
  );
  expect(Number(rows[0].ms)).toBeGreaterThanOrEqual(250);
  const { followUp } = (await bed.row(task.id)).result as { followUp: string };
  await waitUntil(async () => (await bed.status(followUp)) === "succeeded", "the follow-up to run");
  expect((await bed.row(followUp)).result).toEqual({ saw: reportId });
});

it("rolls the handler's writes back when its lease is taken over mid-run", async () => {
  const reportId = crypto.randomUUID();
  const task = await prisma.task.enqueue("stolen-midway", { reportId });
  await wrote.promise;
  await bed.sql.query("UPDATE tasks SET lease_owner = 'another-worker' WHERE id = $1", [task.id]);
  proceed.resolve();
  await waitUntil(() => logger.find("task lease lost before commit; the handler's writes were rolled back", { taskId: task.id }).length === 1, "the rollback");
  expect(await reportExists(reportId)).toBe(false);
  expect(await bed.row(task.id)).toMatchObject({ status: "running", lease_owner: "another-worker", result: null });
});

it("rolls the handler's writes back when it throws, and records the failure", async () => {
  const reportId = crypto.randomUUID();
  const task = await prisma.task.enqueue("fails-after-writing", { reportId });
  await waitUntil(async () => (await bed.row(task.id)).attempts === 1 && (await bed.status(task.id)) === "pending", "the failure to be recorded");
  expect(await reportExists(reportId)).toBe(false);
  expect((await bed.row(task.id)).last_error).toContain("business rule broken after the write");
});
