// A workflow's children end to end, on every dialect and every wake-up transport: children started with a step's
// transaction (exactly once, linked to their parent), a wait for all of them, for the first, with each failure policy,
// without holding the worker's one slot; a child's end wakes its parent; cancelling a waiting parent cancels them.

import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { createCleaner, createWorker, defineTasks, silentLogger, taskQueue, type Store, type Worker } from "../../src/index.js";
import { openStore } from "../../src/open-store.js";
import { uniquePrefix } from "../support/broker.js";
import type { testPrisma } from "../support/prisma.js";
import type { PrismaClient } from "../generated/client.js";
import { waitUntil } from "../support/wait.js";
import { recordingLogger } from "../worker/harness.js";
import { WORKFLOW_SETUPS } from "./workflow-setups.js";

/** How many times each start of children ran its transaction's function, per parent, in this process. */
const starts = new Map<string, number>();

const tasks = defineTasks<PrismaClient>()({
  fulfil: {
    payload: z.object({
      items: z.array(z.string()),
      until: z.union([z.literal("all"), z.literal("first"), z.number()]).default("all"),
      onFailure: z.enum(["fail", "collect", "continue"]).default("fail"),
    }),
    maxAttempts: 1,
    handler: async ({ items, until, onFailure }, ctx) => {
      const children = await ctx.step.startChildren("pack items", async (tx) => {
        starts.set(ctx.task.id, (starts.get(ctx.task.id) ?? 0) + 1);
        return Promise.all(items.map((item) => tx.task.enqueue(item === "slow" ? "hold" : item === "orphan" ? "orphan" : "pack", { item })));
      });
      const outcomes = await ctx.step.waitForChildren<{ packed: string }>("packed", children, { until, onFailure, recheckMs: 60_000 });
      return outcomes.map((outcome) => (outcome.status === "succeeded" ? outcome.result.packed : `${outcome.name}:${outcome.status}`));
    },
  },
  pack: {
    payload: z.object({ item: z.string() }),
    maxAttempts: 1,
    // A child is kept whatever this says: its parent reads its result.
    deleteOnSuccess: true,
    handler: async ({ item }) => {
      if (item === "broken") throw new Error(`item ${item} cannot be packed`);
      return { packed: item.toUpperCase() };
    },
  },
  /** A child of a queue no worker here serves: a test claims it for a worker that then vanishes. */
  orphan: {
    payload: z.object({ item: z.string() }),
    queue: "orphans",
    maxAttempts: 1,
    handler: async () => undefined,
  },
  /** A child that waits for an event no one sends: it stays pending until cancelled. */
  hold: {
    payload: z.object({ item: z.string() }),
    handler: async (_payload, ctx) => ctx.step.waitForEvent("release", { event: "release" }),
  },
});

type Client = ReturnType<typeof testPrisma>;

describe.each(WORKFLOW_SETUPS)("children on $dialect.name with $transport wake-ups", ({ dialect, options }) => {
  const logger = recordingLogger();
  let database: { url: string; drop(): Promise<void> };
  let prisma: ReturnType<typeof extend>;
  let worker: Worker;
  let store: Store;
  let transport: Record<string, unknown>;
  const extend = (base: Client, transport: Record<string, unknown>) => base.$extends(taskQueue({ tasks, logger: silentLogger, ...transport }));

  beforeAll(async () => {
    database = await dialect.createDatabase();
    transport = options(inject("amqpUrl"), uniquePrefix());
    prisma = extend(dialect.prismaClient(database.url) as unknown as Client, transport);
    store = openStore(database.url, { max: 2 });
    // One slot, polling once a minute, rechecks after a minute: every parent here is woken by its children's ends.
    // It serves the queue "default" only: the orphans' queue has no worker here.
    worker = createWorker({ tasks, databaseUrl: database.url, prisma, logger, concurrency: 1, pollIntervalMs: 60_000, queues: ["default"], ...transport });
    await worker.start();
  });

  afterAll(async () => {
    await worker?.stop();
    await prisma?.$taskQueue.close();
    await prisma?.$disconnect();
    await store?.close();
    await database?.drop();
  });

  const status = async (id: string) => (await store.findTask(id))?.status;
  /** Runs a cleaner (a sweep every 100 ms) until `id` has finished; every parent here rechecks only after a minute. */
  async function untilFinishedWithCleaner(id: string): Promise<void> {
    const cleaner = createCleaner({ tasks, databaseUrl: database.url, logger: silentLogger, intervalMs: 100, ...transport });
    await cleaner.start();
    try {
      await waitUntil(() => finished(id), "the parent to finish", 20_000);
    } finally {
      await cleaner.stop();
    }
  }
  const finished = async (id: string) => ["succeeded", "dead", "cancelled"].includes((await status(id)) ?? "");

  it("starts the children once with their parent's step, runs them while the parent waits, and the last one's end wakes it", async () => {
    const parent = await prisma.task.enqueue("fulfil", { items: ["a", "b", "c"] });
    await waitUntil(() => finished(parent.id), "the parent to finish");
    const row = await store.findTask(parent.id);
    expect(row).toMatchObject({ status: "succeeded", result: ["A", "B", "C"] });
    expect(starts.get(parent.id)).toBe(1);
    const children = await store.childStates(parent.id);
    expect(children.map((child) => [child.name, child.status, JSON.parse(child.resultJson!) as unknown])).toEqual([
      ["pack", "succeeded", { packed: "A" }],
      ["pack", "succeeded", { packed: "B" }],
      ["pack", "succeeded", { packed: "C" }],
    ]);
    for (const child of children) expect((await store.findTask(child.id))!.parentId).toBe(parent.id);
    expect((await store.loadSteps(parent.id)).map((step) => [step.name, step.kind])).toEqual([
      ["pack items", "children"],
      ["packed", "wait-children"],
    ]);
    // The one slot ran the children while the parent waited; every wake of the parent came from an end, not the recheck.
    expect(logger.find("task suspended", { taskId: parent.id }).length).toBeGreaterThanOrEqual(1);
  });

  it("'first' ends the wait at the first child's end and returns the others as they are", async () => {
    const parent = await prisma.task.enqueue("fulfil", { items: ["slow", "a"], until: "first" });
    await waitUntil(() => finished(parent.id), "the parent to finish");
    // The held child has not ended: pending, or running when a claim took it just before.
    expect((await store.findTask(parent.id))!.result).toEqual([expect.stringMatching(/^hold:(pending|running)$/), "A"]);
  });

  it("a child that goes dead fails the parent under 'fail', naming it; 'collect' returns it; 'continue' waits for the successes", async () => {
    const failing = await prisma.task.enqueue("fulfil", { items: ["a", "broken"] });
    await waitUntil(() => finished(failing.id), "the failing parent to finish");
    const dead = await store.findTask(failing.id);
    expect(dead!.status).toBe("dead");
    expect(dead!.lastError).toMatch(/child task "pack" \(.+\) ended dead: Error: item broken cannot be packed/);

    const collecting = await prisma.task.enqueue("fulfil", { items: ["broken", "a"], onFailure: "collect", until: 1 });
    await waitUntil(() => finished(collecting.id), "the collecting parent to finish");
    // The dead child counts as ended: the wait for one ended child may end with it (or with "a", had it ended first).
    expect((await store.findTask(collecting.id))!.status).toBe("succeeded");

    const continuing = await prisma.task.enqueue("fulfil", { items: ["broken", "a"], onFailure: "continue", until: 1 });
    await waitUntil(() => finished(continuing.id), "the continuing parent to finish");
    expect((await store.findTask(continuing.id))!.result).toEqual(["pack:dead", "A"]);
  });

  it("a child the cleaner makes dead (its worker vanished, its attempts used up) wakes its parent at once", async () => {
    const parent = await prisma.task.enqueue("fulfil", { items: ["orphan"], onFailure: "collect" });
    await waitUntil(async () => (await store.loadSteps(parent.id)).length === 1 && (await store.childStates(parent.id)).length === 1, "the parent to start its child");
    const [child] = await store.childStates(parent.id);
    // A worker of the child's queue claims it with a lease of 1 ms and is never heard of again.
    const [claim] = await store.claimByIds([child!.id], { owner: "vanished", leaseMs: 1, names: ["orphan"], queues: ["orphans"] });
    expect(claim, JSON.stringify(claim)).toMatchObject({ claimed: { id: child!.id } });
    await waitUntil(async () => (await status(parent.id)) === "pending" && (await store.loadSteps(parent.id)).length === 1, "the parent to wait for it");
    // The parent rechecks only after a minute: its end within the wait below is the cleaner's wake.
    await untilFinishedWithCleaner(parent.id);
    expect(await status(child!.id)).toBe("dead");
    expect((await store.findTask(parent.id))!.result).toEqual(["orphan:dead"]);
  });

  it("an operator's cancel of a child makes its waiting parent due: the cleaner publishes it and the parent sees the cancel", async () => {
    const parent = await prisma.task.enqueue("fulfil", { items: ["slow"], onFailure: "collect" });
    await waitUntil(async () => (await status(parent.id)) === "pending" && (await store.loadSteps(parent.id)).length === 1, "the parent to wait for its child");
    const [child] = await store.childStates(parent.id);
    await waitUntil(async () => (await store.loadSteps(child!.id)).length === 1 && (await status(child!.id)) === "pending", "the child to wait for its event");
    expect((await store.cancelTask(child!.id)).map((row) => row.id)).toEqual([child!.id]);
    // The worker polls once a minute too: the parent's end here is the cancel's doing, published by the cleaner.
    await untilFinishedWithCleaner(parent.id);
    expect((await store.findTask(parent.id))!.result).toEqual(["hold:cancelled"]);
  });

  it("cancelling a waiting parent cancels its pending children", async () => {
    const parent = await prisma.task.enqueue("fulfil", { items: ["slow", "slow"] });
    await waitUntil(
      async () => (await status(parent.id)) === "pending" && (await store.loadSteps(parent.id)).length === 1 && (await store.childStates(parent.id)).length === 2,
      "the parent to wait for its children",
    );
    await waitUntil(
      async () => (await Promise.all((await store.childStates(parent.id)).map((child) => store.loadSteps(child.id)))).every((steps) => steps.length === 1),
      "the children to wait",
    );
    await waitUntil(async () => (await store.childStates(parent.id)).every((child) => child.status === "pending"), "the children to be pending");
    const cancelled = await store.cancelTask(parent.id);
    expect(cancelled.map((row) => row.id).sort()).toEqual([parent.id, ...(await store.childStates(parent.id)).map((child) => child.id)].sort());
    expect((await store.childStates(parent.id)).map((child) => child.status)).toEqual(["cancelled", "cancelled"]);
    expect(await status(parent.id)).toBe("cancelled");
  });

  it("refuses to send an event under a name the package keeps for itself", async () => {
    await expect(prisma.task.signal(crypto.randomUUID(), "ptq:children")).rejects.toThrow('event names starting with "ptq:" are the package\'s own');
  });
});
