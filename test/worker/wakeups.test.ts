// Wake-up edge cases: a message that overtakes its commit still runs the task; malformed bodies and ids of rows that
// never commit are acked and logged, and the worker keeps working.

import amqp from "amqplib";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { topology } from "../../src/wakeups/rabbitmq/topology.js";
import { encodeWakeup } from "../../src/wakeups/rabbitmq/wakeup-message.js";
import { openStore, type Store } from "../../src/index.js";
import { createWorker, type Worker } from "../../src/worker/create-worker.js";
import { workerTasks } from "../fixtures/worker-tasks.js";
import { waitUntil } from "../support/wait.js";
import { recordingLogger, WorkerTestBed } from "./harness.js";

let bed: WorkerTestBed;
let pool: pg.Pool;
let store: Store;
let worker: Worker;
const logger = recordingLogger();
/** Ids the worker's claims found no row for. */
const missed = new Set<string>();

/** `inner`, noting every id its claims by id found missing. */
function notingMissing(inner: Store): Store {
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property === "claimByIds") {
        return async (...args: Parameters<Store["claimByIds"]>) => {
          const results = await target.claimByIds(...args);
          for (const result of results) if (!result.claimed && result.reason === "missing") missed.add(result.id);
          return results;
        };
      }
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

beforeAll(async () => {
  bed = await WorkerTestBed.create();
  pool = new pg.Pool({ connectionString: bed.url, max: 4 });
  store = openStore(bed.url, { max: 6 });
  worker = createWorker({ tasks: workerTasks(pool, "w"), store: notingMissing(store), amqpUrl: bed.amqpUrl, amqpPrefix: bed.prefix, logger, pollIntervalMs: 60_000 });
  await worker.start();
});

afterAll(async () => {
  await worker?.stop();
  await store?.close();
  await pool?.end();
  await bed?.close();
});

it("runs a task whose wake-up arrives before its transaction commits (its first claim found no row)", async () => {
  const id = crypto.randomUUID();
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("INSERT INTO tasks (id, name, payload, published_at) VALUES ($1, 'record', '{\"ms\":0}', now())", [id]);
    await bed.wake([id]);
    await waitUntil(() => missed.has(id), "the worker's claim to find no committed row");
    await client.query("COMMIT");
  } finally {
    client.release();
  }
  await waitUntil(async () => (await bed.status(id)) === "succeeded", "the task to run");
  expect(logger.find("task claimed", { taskId: id, via: "wakeup" })).toHaveLength(1);
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
