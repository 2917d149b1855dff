// Bad input: rows the worker cannot or must not run. A task another version of the app wrote (a name this registry
// does not know) is never claimed and stays pending; a wake-up for a deleted row is acked and logged; a row deleted
// while its handler runs aborts the run and records nothing. The worker keeps working through all of them.

import amqp from "amqplib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { topology } from "../../src/wakeups/rabbitmq/topology.js";
import { defineTasks, openStore, type Store } from "../../src/index.js";
import { createWorker, TaskLeaseLostError, type Worker } from "../../src/worker/create-worker.js";
import { sleep } from "../fixtures/worker-tasks.js";
import { countingStore } from "../support/counting-store.js";
import { waitUntil } from "../support/wait.js";
import { recordingLogger, WORKER_DIALECTS, WorkerTestBed } from "./harness.js";

const ran: string[] = [];
const aborted = new Map<string, unknown>();
const tasks = defineTasks({
  quick: { payload: z.object({}), handler: async (_p, ctx) => void ran.push(ctx.task.id) },
  slow: {
    payload: z.object({}),
    handler: async (_p, ctx) => {
      ran.push(ctx.task.id);
      ctx.signal.addEventListener("abort", () => aborted.set(ctx.task.id, ctx.signal.reason));
      await sleep(20_000, ctx.signal);
    },
  },
});

describe.each(WORKER_DIALECTS)("rows the worker must not run ($name)", (dialect) => {
  let bed: WorkerTestBed;
  let consumer: Worker;
  let poller: Worker;
  let pollerStore: Store;
  /** The store operations the polling worker asked for: its claimDue calls are its polls. */
  const pollerCalls = new Map<string, number>();
  const logger = recordingLogger();
  const pollerLogger = recordingLogger();

  beforeAll(async () => {
    bed = await WorkerTestBed.create(dialect);
    pollerStore = openStore(bed.url, { max: 2 });
    consumer = createWorker({ tasks, databaseUrl: bed.url, amqpUrl: bed.amqpUrl, amqpPrefix: bed.prefix, logger, leaseMs: 600, pollIntervalMs: 600_000 });
    // A second worker without a broker, polling often: polling must skip the foreign row too.
    poller = createWorker({
      tasks,
      store: countingStore(pollerStore, pollerCalls).store,
      wakeups: "polling",
      logger: pollerLogger,
      pollIntervalMs: 50,
      queues: ["default"],
    });
    await consumer.start();
  });

  afterAll(async () => {
    await consumer?.stop();
    await poller?.stop();
    await pollerStore?.close();
    await bed?.close();
  });

  it("never runs a task written by another version of the app: the wake-up is logged with its name, the row stays pending", async () => {
    const foreign = await bed.insertTask("invoice.v2", { total: 12 }, { publishedNow: true });
    await bed.wake([foreign]);
    await waitUntil(() => logger.find("wake-up dropped", { taskId: foreign, reason: "not-ours" }).length === 1, "the wake-up to be dropped");
    const [line] = logger.find("wake-up dropped", { taskId: foreign });
    expect(line!.level).toBe("info");
    expect(line!.fields).toMatchObject({
      taskName: "invoice.v2",
      queue: "default",
      detail: 'this worker does not take task "invoice.v2" in queue "default" (it takes quick, slow in default); it stays pending for a worker that does',
    });

    await poller.start();
    const known = await bed.insertTask("quick", {});
    await waitUntil(async () => (await bed.status(known)) === "succeeded", "the poller to run a known task");
    // Several more polls, each of which could have claimed the foreign row.
    const polls = pollerCalls.get("claimDue") ?? 0;
    await waitUntil(() => (pollerCalls.get("claimDue") ?? 0) >= polls + 3, "three more polls");
    expect(await bed.row(foreign)).toMatchObject({ status: "pending", attempts: 0, lease_owner: null, last_error: null, payload: { total: 12 } });
    expect(pollerLogger.find("task claimed", { taskId: foreign })).toEqual([]);
    expect(ran).not.toContain(foreign);
    await poller.stop(); // the next tests rely on the consumer alone
  });

  it("acks and logs a wake-up for a row that was deleted, and runs the next task", async () => {
    const deleted = await bed.insertTask("quick", {}, { publishedNow: true });
    await bed.exec(`DELETE FROM tasks WHERE id = '${deleted}'`);
    await bed.wake([deleted]);
    await waitUntil(() => logger.find("wake-up dropped", { taskId: deleted, reason: "missing" }).length === 1, "the wake-up to be dropped", 15_000);
    expect(logger.find("wake-up dropped", { taskId: deleted })[0]!.fields.detail).toBe("no such task: it never committed, or it was deleted");
    expect(ran).not.toContain(deleted);
  });

  it("aborts a run whose row was deleted under it, writes nothing back, and keeps working", async () => {
    const doomed = await bed.insertTask("slow", {}, { publishedNow: true });
    await bed.wake([doomed]);
    await waitUntil(() => ran.includes(doomed), "the slow task to start");
    await bed.exec(`DELETE FROM tasks WHERE id = '${doomed}'`);
    await waitUntil(() => aborted.has(doomed), "the heartbeat to abort the run");
    expect(aborted.get(doomed)).toBeInstanceOf(TaskLeaseLostError);
    expect(logger.find("task lease lost; abandoning the run without recording it", { taskId: doomed })).toHaveLength(1);
    expect(await bed.store.findTask(doomed)).toBeUndefined();

    const next = await bed.insertTask("quick", {}, { publishedNow: true });
    await bed.wake([next]);
    await waitUntil(async () => (await bed.status(next)) === "succeeded", "the next task to run");

    // Every wake-up of this file was acked: once the consumer closed its channel, none went back to the queue.
    await consumer.stop();
    const model = await amqp.connect(bed.amqpUrl);
    try {
      const channel = await model.createChannel();
      expect((await channel.checkQueue(topology(bed.prefix).queueName("default"))).messageCount).toBe(0);
    } finally {
      await model.close();
    }
  });
});
