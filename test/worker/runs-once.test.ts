// A committed task runs once and its result is stored; a rolled-back one never runs; duplicate wake-ups never run
// a task twice; the handler's context carries the row, attempt, logger and Prisma client.

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTasks } from "../../src/index.js";
import { waitUntil } from "../support/wait.js";
import { WORKER_DIALECTS, workerFixture } from "./harness.js";

const calls = new Map<string, number>();
const seen: Array<{ id: string; attempt: number; status: string; hasSignal: boolean; hasPrisma: boolean }> = [];
let followUpId = "";
const count = (id: string) => calls.set(id, (calls.get(id) ?? 0) + 1);

const tasks = defineTasks({
  greet: {
    payload: z.object({ name: z.string(), times: z.number().default(1) }),
    handler: async ({ name, times }, ctx) => {
      count(ctx.task.id);
      seen.push({ id: ctx.task.id, attempt: ctx.attempt, status: ctx.task.status, hasSignal: ctx.signal instanceof AbortSignal, hasPrisma: !!ctx.prisma });
      ctx.logger.info("greeting", { name });
      return { hello: name, times };
    },
  },
  "no-result": { payload: z.object({}), handler: async (_p, ctx) => void count(ctx.task.id) },
  "odd-result": { payload: z.object({}), handler: async (_p, ctx) => (count(ctx.task.id), { big: 10n }) },
  "spawn-follow-up": {
    payload: z.object({}),
    handler: async (_p, ctx) => {
      count(ctx.task.id);
      followUpId = (await ctx.prisma.$transaction(async (tx) => tx.task.enqueue("greet", { name: "follow-up" }))).id;
    },
  },
  "enqueue-only": { payload: z.object({}) },
});

describe.each(WORKER_DIALECTS)("a committed task runs once ($name)", (dialect) => {
  const fixture = workerFixture(tasks, { dialect, transactional: true, worker: { pollIntervalMs: 60_000 } });

  it("runs a committed task once, stores its result and marks it succeeded", async () => {
    const reportId = crypto.randomUUID();
    const task = await fixture.prisma.$transaction(async (tx) => {
      await tx.report.create({ data: { id: reportId } });
      return tx.task.enqueue("greet", { name: "Ada" });
    });
    await waitUntil(async () => (await fixture.bed.status(task.id)) === "succeeded", "the task to succeed");
    const row = await fixture.bed.row(task.id);
    expect(row).toMatchObject({ status: "succeeded", attempts: 1, result: { hello: "Ada", times: 1 }, lease_owner: null, lease_expires_at: null });
    expect(row.finished_at).toBeInstanceOf(Date);
    expect(calls.get(task.id)).toBe(1);
    expect(fixture.logger.find("task claimed", { taskId: task.id, via: "wakeup" })).toHaveLength(1);
    // The log line follows the commit the status above already shows; wait for it, then count it.
    await waitUntil(() => fixture.logger.find("task succeeded", { taskId: task.id }).length > 0, "the success's log line");
    expect(fixture.logger.find("task succeeded", { taskId: task.id })).toHaveLength(1);

    // Duplicate wake-ups (redelivery, a cleaner re-publish) never run it again.
    await fixture.bed.wake([task.id, task.id]);
    await waitUntil(() => fixture.logger.find("wake-up dropped", { taskId: task.id }).length === 2, "both duplicates to be dropped");
    expect(calls.get(task.id)).toBe(1);
  });

  it("gives the handler its row, attempt, signal, Prisma client and a logger tagged with the task", async () => {
    const task = await fixture.prisma.task.enqueue("greet", { name: "Grace" });
    await waitUntil(async () => (await fixture.bed.status(task.id)) === "succeeded", "the task to succeed");
    expect(seen.find((s) => s.id === task.id)).toEqual({ id: task.id, attempt: 1, status: "running", hasSignal: true, hasPrisma: true });
    expect(fixture.logger.find("greeting", { taskId: task.id, taskName: "greet", name: "Grace" })).toHaveLength(1);
  });

  it("lets a handler enqueue a follow-up task through ctx.prisma, which then runs", async () => {
    const task = await fixture.prisma.task.enqueue("spawn-follow-up", {});
    await waitUntil(async () => (await fixture.bed.status(task.id)) === "succeeded", "the parent to succeed");
    await waitUntil(async () => followUpId !== "" && (await fixture.bed.status(followUpId)) === "succeeded", "the follow-up to succeed");
    expect((await fixture.bed.row(followUpId)).result).toEqual({ hello: "follow-up", times: 1 });
  });

  it("never runs a task whose transaction rolled back, even when a wake-up for its id arrives", async () => {
    let id = "";
    await expect(
      fixture.prisma.$transaction(async (tx) => {
        id = (await tx.task.enqueue("greet", { name: "ghost" })).id;
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    await fixture.bed.wake([id]);
    await waitUntil(() => fixture.logger.find("wake-up dropped", { taskId: id, reason: "missing" }).length === 1, "the wake-up to be dropped", 15_000);
    expect(calls.get(id)).toBeUndefined();
  });

  it("stores null for an undefined result and for one JSON cannot hold, and logs the latter", async () => {
    const none = await fixture.prisma.task.enqueue("no-result", {});
    const odd = await fixture.prisma.task.enqueue("odd-result", {});
    for (const id of [none.id, odd.id]) await waitUntil(async () => (await fixture.bed.status(id)) === "succeeded", "both to succeed");
    expect((await fixture.bed.row(none.id)).result).toBeNull();
    expect((await fixture.bed.row(odd.id)).result).toBeNull();
    const [line] = fixture.logger.find("task result not storable, stored null", { taskId: odd.id });
    expect(String(line?.fields.problem)).toMatch(/not serialisable as JSON.*BigInt/);
  });

  it("never claims a task that has no handler in this worker", async () => {
    const task = await fixture.prisma.task.enqueue("enqueue-only", {});
    await waitUntil(() => fixture.logger.find("wake-up dropped", { taskId: task.id, reason: "not-ours" }).length === 1, "the wake-up to be dropped");
    expect(await fixture.bed.row(task.id)).toMatchObject({ status: "pending", attempts: 0, lease_owner: null });
  });
});
