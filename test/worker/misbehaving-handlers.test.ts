// Bad input: handlers that break the rules. One that ignores its AbortSignal and returns after its timeout has its
// late result ignored (and, transactional, its writes rolled back); odd thrown values are recorded readably.
// (Never resolving and ignoring the signal: timeouts.test.ts; a thrown string, object or null: retries.test.ts.)

import { expect, it } from "vitest";
import { z } from "zod";
import { defineTasks } from "../../src/index.js";
import type { PrismaClient } from "../generated/client.js";
import { sleep } from "../fixtures/worker-tasks.js";
import { waitUntil } from "../support/wait.js";
import { workerFixture } from "./harness.js";

const returned = new Set<string>();
const circular: Record<string, unknown> = { name: "loop" };
circular.self = circular;

const tasks = defineTasks<PrismaClient>()({
  late: {
    payload: z.object({}),
    timeoutMs: 300,
    maxAttempts: 1,
    handler: async (_p, ctx) => {
      await sleep(1200); // deaf to ctx.signal
      returned.add(ctx.task.id);
      return { late: true };
    },
  },
  "late-tx": {
    payload: z.object({ reportId: z.string() }),
    timeoutMs: 300,
    maxAttempts: 1,
    transactional: true,
    handler: async ({ reportId }, ctx) => {
      await ctx.tx.report.create({ data: { id: reportId } });
      await sleep(1200); // deaf to ctx.signal
      returned.add(ctx.task.id);
    },
  },
  "throws-odd": {
    payload: z.object({ kind: z.enum(["circular", "symbol", "undefined", "number"]) }),
    maxAttempts: 1,
    handler: async ({ kind }) => {
      throw kind === "circular" ? circular : kind === "symbol" ? Symbol("odd") : kind === "number" ? 42 : undefined;
    },
  },
});

const fixture = workerFixture(tasks, { transactional: true });

it("ignores the late result of a handler that outlived its timeout: the task stays failed", async () => {
  const task = await fixture.prisma.task.enqueue("late", {});
  await waitUntil(async () => (await fixture.bed.status(task.id)) === "dead", "the timeout to fail the task");
  await waitUntil(() => returned.has(task.id), "the deaf handler to return at last");
  await new Promise((resolve) => setTimeout(resolve, 200));
  const row = await fixture.bed.row(task.id);
  expect(row).toMatchObject({ status: "dead", attempts: 1, result: null });
  expect(row.last_error).toContain("ran longer than its timeoutMs of 300 ms");
  expect(fixture.logger.find("task succeeded", { taskId: task.id })).toEqual([]);
});

it("rolls back the writes of a transactional handler that returns after its timeout", async () => {
  const reportId = crypto.randomUUID();
  const task = await fixture.prisma.task.enqueue("late-tx", { reportId });
  await waitUntil(async () => (await fixture.bed.status(task.id)) === "dead", "the timeout to fail the task");
  await waitUntil(() => returned.has(task.id), "the deaf handler to return at last");
  // Its transaction is rolled back once the handler returns (or Prisma's transaction timeout ends it).
  await waitUntil(async () => (await fixture.bed.sql.query("SELECT 1 FROM pg_stat_activity WHERE state = 'idle in transaction' AND datname = current_database()")).rowCount === 0, "the transaction to end");
  expect((await fixture.bed.sql.query("SELECT count(*)::int AS n FROM reports WHERE id = $1", [reportId])).rows[0].n).toBe(0);
  expect(await fixture.bed.row(task.id)).toMatchObject({ status: "dead", attempts: 1, result: null });
});

it("records a thrown circular object, symbol, number or undefined as readable text", async () => {
  const kinds = ["circular", "symbol", "undefined", "number"] as const;
  const enqueued = await Promise.all(kinds.map((kind) => fixture.prisma.task.enqueue("throws-odd", { kind })));
  for (const task of enqueued) await waitUntil(async () => (await fixture.bed.status(task.id)) === "dead", "the task to go dead");
  const errors = await Promise.all(enqueued.map(async (task) => (await fixture.bed.row(task.id)).last_error));
  expect(errors).toEqual(["[object Object]", "Symbol(odd)", "undefined", "42"]);
});
