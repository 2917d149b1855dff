// A backlog of one-id wake-ups (one message per one-task transaction) is claimed in statements of many ids: the worker
// holds as many messages unacknowledged as it may hold tasks claimed, not only `concurrency` of them.

import amqp from "amqplib";
import { afterAll, beforeAll, expect, it } from "vitest";
import { z } from "zod";
import { defineTasks, openStore, type Store } from "../../src/index.js";
import { createWorker, type Worker } from "../../src/worker/create-worker.js";
import { topology } from "../../src/wakeups/rabbitmq/topology.js";
import { encodeWakeup } from "../../src/wakeups/rabbitmq/wakeup-message.js";
import { waitUntil } from "../support/wait.js";
import { recordingLogger, WorkerTestBed } from "./harness.js";

const COUNT = 400;
const CONCURRENCY = 2;

const tasks = defineTasks({ noop: { payload: z.object({ n: z.number() }), handler: () => undefined } });

let bed: WorkerTestBed;
let pool: Store;
let worker: Worker | undefined;
/** The number of ids of each claimByIds call. */
const claimSizes: number[] = [];

beforeAll(async () => {
  bed = await WorkerTestBed.create();
  pool = openStore(bed.url, { max: 4 });
});

afterAll(async () => {
  await worker?.stop();
  await pool?.close();
  await bed?.close();
});

it("claims a backlog of one-id wake-ups in statements of many ids, and acknowledges every message", async () => {
  const ids: string[] = [];
  for (let n = 0; n < COUNT; n++) ids.push(await bed.insertTask("noop", { n }, { publishedNow: true }));
  await bed.publishRaw(ids.map((id) => encodeWakeup([id])));
  const store = new Proxy(pool, {
    get(target, property, receiver) {
      if (property !== "claimByIds") return Reflect.get(target, property, receiver) as unknown;
      return (...args: Parameters<Store["claimByIds"]>) => {
        claimSizes.push(args[0].length);
        return target.claimByIds(...args);
      };
    },
  });
  worker = createWorker({ tasks, store, amqpUrl: bed.amqpUrl, amqpPrefix: bed.prefix, concurrency: CONCURRENCY, logger: recordingLogger() });
  await worker.start();
  await waitUntil(async () => (await bed.countStatus("succeeded")) === COUNT, `all ${COUNT} tasks to succeed`, 60_000);
  // With a prefetch of `concurrency`, every claim took at most 2 ids: about 200 statements for 400 tasks.
  expect(Math.max(...claimSizes), JSON.stringify(claimSizes)).toBeGreaterThan(CONCURRENCY * 10);
  expect(claimSizes.length, JSON.stringify(claimSizes)).toBeLessThan(COUNT / CONCURRENCY / 4);
  // Stopped, the worker's unacknowledged messages would go back to the queue: none may be left there.
  await worker.stop();
  worker = undefined;
  const model = await amqp.connect(bed.amqpUrl);
  try {
    const channel = await model.createChannel();
    expect((await channel.checkQueue(topology(bed.prefix).queueName("default"))).messageCount).toBe(0);
  } finally {
    await model.close();
  }
});
