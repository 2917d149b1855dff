// Bad input: handlers that break the rules. One that ignores its AbortSignal and returns after its timeout has its
// late result ignored (and, transactional, its writes rolled back); odd thrown values are recorded readably.
// (Never resolving and ignoring the signal: timeouts.test.ts; a thrown string, object or null: retries.test.ts.)

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTasks } from "../../src/index.js";
import type { PrismaClient } from "../generated/client.js";
import { sleep } from "../fixtures/worker-tasks.js";
import { waitUntil } from "../support/wait.js";
import { WORKER_DIALECTS, workerFixture } from "./harness.js";

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
  quick: { payload: z.object({}), handler: async () => "quick" },
  "throws-odd": {
    payload: z.object({ kind: z.enum(["circular", "symbol", "undefined", "number"]) }),
    maxAttempts: 1,
    handler: async ({ kind }) => {
      // What is thrown here is the point of the test: values that are not Errors.
      // eslint-disable-next-line @typescript-eslint/only-throw-error
      throw kind === "circular" ? circular : kind === "symbol" ? Symbol("odd") : kind === "number" ? 42 : undefined;
    },
  },
});

describe.each(WORKER_DIALECTS)("handlers that break the rules ($name)", (dialect) => {
  const fixture = workerFixture(tasks, { dialect, transactional: true });

  it("ignores the late result of a handler that outlived its timeout: the task stays failed", async () => {
    const task = await fixture.prisma.task.enqueue("late", {});
    await waitUntil(async () => (await fixture.bed.status(task.id)) === "dead", "the timeout to fail the task");
    await waitUntil(() => returned.has(task.id), "the deaf handler to return at last");
    // A task enqueued after the late return runs to its end: a write of the late result would have been sent before it.
    const after = await fixture.prisma.task.enqueue("quick", {});
    await waitUntil(async () => (await fixture.bed.status(after.id)) === "succeeded", "a later task to succeed");
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
    // Its transaction is rolled back once the handler returns (or Prisma's transaction timeout ends it). Writing the same
    // report waits for that transaction (its row lock, or SQLite's one writer) and succeeds only when nothing committed.
    await fixture.prisma.$transaction(async (tx) => tx.report.create({ data: { id: reportId } }), { timeout: 15_000, maxWait: 15_000 });
    expect(await fixture.prisma.report.count({ where: { id: reportId } })).toBe(1);
    expect(await fixture.bed.row(task.id)).toMatchObject({ status: "dead", attempts: 1, result: null });
  });

  it("records a thrown circular object, symbol, number or undefined as readable text", async () => {
    const kinds = ["circular", "symbol", "undefined", "number"] as const;
    const enqueued = await Promise.all(kinds.map((kind) => fixture.prisma.task.enqueue("throws-odd", { kind })));
    for (const task of enqueued) await waitUntil(async () => (await fixture.bed.status(task.id)) === "dead", "the task to go dead");
    const errors = await Promise.all(enqueued.map(async (task) => (await fixture.bed.row(task.id)).last_error));
    expect(errors).toEqual(["<ref *1> { name: 'loop', self: [Circular *1] }", "Symbol(odd)", "undefined", "42"]);
  });
});
