// Delete on success: a success with no result deletes the task's row (in the transaction of a transactional handler),
// a result keeps it, a task's own choice wins over the worker's, and the dedupe key is free again once the row is gone.

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

const ran = new Set<string>();
const wrote = new Map<string, ReturnType<typeof deferred>>();
const proceed = new Map<string, ReturnType<typeof deferred>>();
const gate = (map: typeof wrote, id: string) => {
  if (!map.has(id)) map.set(id, deferred());
  return map.get(id)!;
};

const tasks = defineTasks<PrismaClient>()({
  "no-result": {
    payload: z.object({ n: z.string() }),
    handler: ({ n }) => void ran.add(n),
  },
  "null-result": {
    payload: z.object({ n: z.string() }),
    handler: ({ n }) => (ran.add(n), null),
  },
  "with-result": {
    payload: z.object({ n: z.string() }),
    handler: ({ n }) => ({ saw: n }),
  },
  "keeps-its-row": {
    payload: z.object({ n: z.string() }),
    deleteOnSuccess: false,
    handler: ({ n }) => void ran.add(n),
  },
  "writes-a-report": {
    payload: z.object({ reportId: z.string().uuid() }),
    transactional: true,
    handler: async ({ reportId }, ctx) => {
      await ctx.tx.report.create({ data: { id: reportId, status: "done" } });
    },
  },
  "stolen-before-commit": {
    payload: z.object({ reportId: z.string().uuid() }),
    transactional: true,
    handler: async ({ reportId }, ctx) => {
      await ctx.tx.report.create({ data: { id: reportId } });
      gate(wrote, reportId).resolve();
      await gate(proceed, reportId).promise;
    },
  },
});

describe.each(WORKER_DIALECTS)("delete on success ($name)", (dialect) => {
  const fixture = workerFixture(tasks, { dialect, transactional: true, worker: { deleteOnSuccess: true } });

  afterAll(() => {
    for (const { resolve } of proceed.values()) resolve();
  });

  const gone = async (id: string) => (await fixture.bed.store.findTask(id)) === undefined;
  const reportExists = async (id: string) => (await fixture.prisma.report.count({ where: { id } })) === 1;

  it("deletes the row of a task whose handler returned nothing (undefined or null), and logs the success as a deletion", async () => {
    const first = await fixture.prisma.task.enqueue("no-result", { n: "a" });
    const second = await fixture.prisma.task.enqueue("null-result", { n: "b" });
    await waitUntil(async () => (await gone(first.id)) && (await gone(second.id)), "both rows to be deleted");
    expect([ran.has("a"), ran.has("b")]).toEqual([true, true]);
    // The log line follows the commit the deletion above already shows; wait for it, then count it.
    await waitUntil(() => fixture.logger.find("task succeeded", { taskId: first.id, deleted: true }).length > 0, "the deletion's log line");
    expect(fixture.logger.find("task succeeded", { taskId: first.id, deleted: true })).toHaveLength(1);
  });

  it("keeps the row of a task that returned a result, and of a task that chose to keep it", async () => {
    const withResult = await fixture.prisma.task.enqueue("with-result", { n: "c" });
    const kept = await fixture.prisma.task.enqueue("keeps-its-row", { n: "d" });
    await waitUntil(async () => (await fixture.bed.status(withResult.id)) === "succeeded" && (await fixture.bed.status(kept.id)) === "succeeded", "both to succeed");
    expect((await fixture.bed.row(withResult.id)).result).toEqual({ saw: "c" });
    expect(ran.has("d")).toBe(true);
  });

  it("frees the dedupe key once the row is deleted: the same key enqueues a new task", async () => {
    const first = await fixture.prisma.task.enqueue("no-result", { n: "e" }, { key: "delete-on-success-key" });
    await waitUntil(() => gone(first.id), "the first task's row to be deleted");
    const second = await fixture.prisma.task.enqueue("no-result", { n: "f" }, { key: "delete-on-success-key" });
    expect(second.id).not.toBe(first.id);
    await waitUntil(() => gone(second.id), "the second task to run and be deleted");
    expect(ran.has("f")).toBe(true);
  });

  it("a transactional handler's writes commit with the deletion", async () => {
    const reportId = crypto.randomUUID();
    const task = await fixture.prisma.task.enqueue("writes-a-report", { reportId });
    await waitUntil(() => gone(task.id), "the row to be deleted");
    expect(await reportExists(reportId)).toBe(true);
  });

  // Where one write lock covers the database, the handler's transaction holds it: nobody can take the lease mid-run.
  it.runIf(dialect.writeLock === "row")("a transactional handler whose lease was taken deletes nothing, and its writes roll back", async () => {
    const reportId = crypto.randomUUID();
    const task = await fixture.prisma.task.enqueue("stolen-before-commit", { reportId });
    await gate(wrote, reportId).promise;
    await fixture.bed.exec(`UPDATE tasks SET lease_owner = 'another-worker' WHERE id = '${task.id}'`);
    gate(proceed, reportId).resolve();
    await waitUntil(() => fixture.logger.find("task lease lost before commit; the handler's writes were rolled back", { taskId: task.id }).length === 1, "the rollback");
    expect(await reportExists(reportId)).toBe(false);
    expect(await fixture.bed.row(task.id)).toMatchObject({ status: "running", lease_owner: "another-worker" });
  });
});
