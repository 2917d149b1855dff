// Wake-up edge cases: a message that overtakes its commit still runs the task; malformed bodies and ids of rows that
// never commit are acked and logged, and the worker keeps working.

import amqp from "amqplib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { topology } from "../../src/wakeups/rabbitmq/topology.js";
import { encodeWakeup } from "../../src/wakeups/rabbitmq/wakeup-message.js";
import { defineTasks, openStore, type Store } from "../../src/index.js";
import { createWorker, type Worker } from "../../src/worker/create-worker.js";
import { waitUntil } from "../support/wait.js";
import { recordingLogger, WORKER_DIALECTS, WorkerTestBed } from "./harness.js";

const tasks = defineTasks({ record: { payload: z.object({ ms: z.number().int().min(0) }), handler: async () => ({ ok: true }) } });

/** `inner`, noting the ids its claims by id were asked for, and those it found no claimable row for (and why). */
function notingClaims(inner: Store, asked: Set<string>, unclaimed: Map<string, string>): Store {
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property === "claimByIds") {
        return async (...args: Parameters<Store["claimByIds"]>) => {
          for (const id of args[0]) asked.add(id);
          const results = await target.claimByIds(...args);
          for (const result of results) if (!result.claimed) unclaimed.set(result.id, result.reason);
          return results;
        };
      }
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe.each(WORKER_DIALECTS)("wake-up edge cases ($name)", (dialect) => {
  let bed: WorkerTestBed;
  let prisma: ReturnType<WorkerTestBed["prisma"]>;
  let store: Store;
  let worker: Worker;
  const logger = recordingLogger();
  /** Ids the worker's claims were asked for, and those they did not take, with the reason. */
  const asked = new Set<string>();
  const unclaimed = new Map<string, string>();

  beforeAll(async () => {
    bed = await WorkerTestBed.create(dialect);
    prisma = bed.prisma(tasks);
    store = openStore(bed.url, { max: 6 });
    worker = createWorker({ tasks, store: notingClaims(store, asked, unclaimed), amqpUrl: bed.amqpUrl, amqpPrefix: bed.prefix, logger, pollIntervalMs: 60_000 });
    await worker.start();
  });

  afterAll(async () => {
    await worker?.stop();
    await store?.close();
    await bed?.closeAll();
  });

  it("runs a task whose wake-up arrives before its transaction commits (its first claim did not find it committed)", async () => {
    const task = await prisma.$transaction(
      async (tx) => {
        const enqueued = await tx.task.enqueue("record", { ms: 0 });
        await bed.wake([enqueued.id]);
        if (dialect.writeLock === "row") {
          // The row is not committed: the claim finds no row (or, MySQL, a locked one) and tries again later.
          await waitUntil(() => unclaimed.has(enqueued.id), "the worker's claim to find no committed row");
          expect(["missing", "locked"]).toContain(unclaimed.get(enqueued.id));
        } else {
          // One writer at a time (SQLite): the claim waits for this transaction's write lock until the commit.
          await waitUntil(() => asked.has(enqueued.id), "the worker's claim to be sent");
        }
        return enqueued;
      },
      { timeout: 20_000 },
    );
    await waitUntil(async () => (await bed.status(task.id)) === "succeeded", "the task to run");
    expect(logger.find("task claimed", { taskId: task.id, via: "wakeup" })).toHaveLength(1);
  });

  it("acks and logs malformed bodies and ids of missing rows, and keeps working", async () => {
    const missing = crypto.randomUUID();
    const bodies = [
      Buffer.alloc(0),
      Buffer.from("certainly not json"),
      Buffer.from(JSON.stringify({ ids: Array.from({ length: 5000 }, () => crypto.randomUUID()) })),
      Buffer.from('{"ids":"0190a3c4-0000-7000-8000-000000000000"}'),
      Buffer.from('{"ids":["not-a-uuid"]}'),
      Buffer.from("null"),
      encodeWakeup([missing]),
    ];
    await bed.publishRaw(bodies);
    await waitUntil(() => logger.find("malformed wake-up dropped").length === 6, "six malformed wake-ups to be dropped");
    expect(logger.find("malformed wake-up dropped").map((line) => line.fields.problem)).toEqual([
      "empty body",
      "body is not JSON",
      expect.stringMatching(/^body of \d+ bytes is larger than any wake-up$/),
      "body has no ids array",
      "ids are not all UUIDs",
      "body has no ids array",
    ]);
    await waitUntil(() => logger.find("wake-up dropped", { taskId: missing, reason: "missing" }).length === 1, "the missing id to be dropped", 15_000);

    const id = await bed.insertTask("record", { ms: 0 }, { publishedNow: true });
    await bed.wake([id]);
    await waitUntil(async () => (await bed.status(id)) === "succeeded", "a good task to still run");

    // Everything was acked: after the worker closes its channel, nothing went back to the queue.
    await worker.stop();
    const model = await amqp.connect(bed.amqpUrl);
    const channel = await model.createChannel();
    const { messageCount } = await channel.checkQueue(topology(bed.prefix).queueName("default"));
    await model.close();
    expect(messageCount).toBe(0);
  });
});
