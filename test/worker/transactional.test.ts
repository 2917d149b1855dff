// Transactional handlers: their writes commit in the transaction that marks the task succeeded, and roll back
// when the lease is stolen mid-run or the handler fails.

import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTasks } from "../../src/index.js";
import type { PrismaClient } from "../generated/client.js";
import { waitUntil } from "../support/wait.js";
import { WORKER_DIALECTS, workerFixture } from "./harness.js";

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Per report: the handler has written it, and may go on. */
const gates = new Map<string, { wrote: ReturnType<typeof deferred>; proceed: ReturnType<typeof deferred> }>();
const gate = (reportId: string) => {
  if (!gates.has(reportId)) gates.set(reportId, { wrote: deferred(), proceed: deferred() });
  return gates.get(reportId)!;
};

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
      gate(reportId).wrote.resolve();
      await gate(reportId).proceed.promise;
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

describe.each(WORKER_DIALECTS)("transactional handlers ($name)", (dialect) => {
  const fixture = workerFixture(tasks, { dialect, transactional: true });

  afterAll(() => {
    for (const { proceed } of gates.values()) proceed.resolve();
  });

  async function reportExists(id: string): Promise<boolean> {
    return (await fixture.prisma.report.count({ where: { id } })) === 1;
  }

  it("commits the handler's writes (and its follow-up task) with the success", async () => {
    const reportId = crypto.randomUUID();
    const task = await fixture.prisma.task.enqueue("write-report", { reportId });
    await waitUntil(async () => (await fixture.bed.status(task.id)) === "succeeded", "the task to succeed");
    expect(await reportExists(reportId)).toBe(true);
    // finished_at is when the task really finished, not when its transaction began (about when the report was written).
    const report = await fixture.prisma.report.findUniqueOrThrow({ where: { id: reportId } });
    expect((await fixture.bed.row(task.id)).finished_at!.getTime() - report.createdAt.getTime()).toBeGreaterThanOrEqual(240);
    const { followUp } = (await fixture.bed.row(task.id)).result as { followUp: string };
    await waitUntil(async () => (await fixture.bed.status(followUp)) === "succeeded", "the follow-up to run");
    expect((await fixture.bed.row(followUp)).result).toEqual({ saw: reportId });
  });

  // Where one write lock covers the database, the handler's transaction holds it: nobody can take the lease mid-run.
  it.runIf(dialect.writeLock === "row")("rolls the handler's writes back when its lease is taken over mid-run", async () => {
    const reportId = crypto.randomUUID();
    const task = await fixture.prisma.task.enqueue("stolen-midway", { reportId });
    await gate(reportId).wrote.promise;
    await fixture.bed.exec(`UPDATE tasks SET lease_owner = 'another-worker' WHERE id = '${task.id}'`);
    gate(reportId).proceed.resolve();
    await waitUntil(() => fixture.logger.find("task lease lost before commit; the handler's writes were rolled back", { taskId: task.id }).length === 1, "the rollback");
    expect(await reportExists(reportId)).toBe(false);
    expect(await fixture.bed.row(task.id)).toMatchObject({ status: "running", lease_owner: "another-worker", result: null });
  });

  it("rolls the handler's writes back when it throws, and records the failure", async () => {
    const reportId = crypto.randomUUID();
    const task = await fixture.prisma.task.enqueue("fails-after-writing", { reportId });
    await waitUntil(async () => (await fixture.bed.row(task.id)).attempts === 1 && (await fixture.bed.status(task.id)) === "pending", "the failure to be recorded");
    expect(await reportExists(reportId)).toBe(false);
    expect((await fixture.bed.row(task.id)).last_error).toContain("business rule broken after the write");
  });
});
