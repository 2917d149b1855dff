// Queue controls over several worker processes, on every dialect: from the handlers' own start and end times, a queue's
// concurrency and a key's are never exceeded, also while a worker holding slots is SIGKILLed (its slots come back once
// the cleaner recovers its leases); the starts of a rate-limited queue never exceed the rate in any window; a paused
// queue starts nothing (no claim after the pause committed) and loses nothing, and runs everything once resumed.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCleaner, openStore, silentLogger, taskQueue, type Cleaner, type Store } from "../../src/index.js";
import { uniquePrefix } from "../support/broker.js";
import { waitUntil } from "../support/wait.js";
import { WorkerProcess } from "../support/worker-process.js";
import { mostAtOnce, mostStartsWithin } from "../support/limit-checks.js";
import { mysqlHarness, postgresHarness, sqliteHarness } from "../conformance/dialects.js";
import type { ConformancePrisma, DialectHarness } from "../conformance/harness.js";
import { controlTasks, QUEUE_LIMIT, RATE, readControlLog, type ControlEvent } from "./limited-tasks.js";

type Client = {
  task: { enqueueMany(items: Array<{ name: string; payload: unknown }>): Promise<Array<{ id: string }>> };
  $taskQueue: { close(): Promise<void> };
  $disconnect(): Promise<void>;
};

interface Interval {
  id: string;
  queue: string;
  key: string | null;
  start: number;
  end: number;
}

/** Each handler run as an interval; a run whose worker was killed ends when it was killed. */
function runIntervals(events: readonly ControlEvent[], killedAt: ReadonlyMap<string, number>): Interval[] {
  const open = new Map<string, ControlEvent>();
  const runs: Interval[] = [];
  for (const event of events) {
    const run = `${event.id}\u0000${event.worker}`;
    if (event.e === "start") open.set(run, event);
    else {
      const start = open.get(run)!;
      open.delete(run);
      runs.push({ id: event.id, queue: event.queue, key: event.key, start: start.t, end: event.t });
    }
  }
  for (const start of open.values()) runs.push({ id: start.id, queue: start.queue, key: start.key, start: start.t, end: killedAt.get(start.worker) ?? Infinity });
  return runs;
}

const HARNESSES: DialectHarness[] = [postgresHarness, sqliteHarness, mysqlHarness];

describe.each(HARNESSES)("queue controls over worker processes: $name", (dialect) => {
  const prefix = uniquePrefix();
  const log = mkdtempSync(join(tmpdir(), "ptq-controls-"));
  const workers = new Map<string, WorkerProcess>();
  const killedAt = new Map<string, number>();
  let url: string;
  let drop: () => Promise<void>;
  let store: Store;
  let client: Client;
  let cleaner: Cleaner;

  beforeAll(async () => {
    const database = await dialect.createDatabase();
    url = database.url;
    drop = () => database.drop();
    store = openStore(url, { max: 4 });
    const base: ConformancePrisma = dialect.prismaClient(url);
    client = base.$extends(taskQueue({ tasks: controlTasks, amqpUrl: dialect.amqpUrl, amqpPrefix: prefix, logger: silentLogger })) as Client;
    cleaner = createCleaner({ tasks: controlTasks, store, amqpUrl: dialect.amqpUrl, amqpPrefix: prefix, logger: silentLogger, intervalMs: 100, unpublishedGraceMs: 200 });
    await cleaner.start();
    const env = { CONTROL_DATABASE_URL: url, CONTROL_AMQP_URL: dialect.amqpUrl ?? "", CONTROL_PREFIX: prefix, CONTROL_LOG: log, CONTROL_LEASE_MS: "1500" };
    const start = (name: string, noQueueLimits: boolean) =>
      WorkerProcess.start({ ...env, CONTROL_WORKER: name, CONTROL_NO_QUEUE_LIMITS: noQueueLimits ? "1" : "0" }, "test/controls/limited-worker.ts");
    const [w1, w2] = await Promise.all([start("w1", false), start("w2", false)]);
    // w3 declares no queueLimits (another config, a rolling deploy): the limits w1 and w2 wrote hold for it too.
    const w3 = await start("w3", true);
    Object.entries({ w1, w2, w3 }).forEach(([name, worker]) => workers.set(name, worker));
  }, 120_000);

  afterAll(async () => {
    for (const worker of workers.values()) {
      worker.signal("SIGTERM");
      await worker.exited;
    }
    await cleaner?.stop();
    await client?.$taskQueue.close();
    await client?.$disconnect();
    await store?.close();
    await drop?.();
    rmSync(log, { recursive: true, force: true });
  }, 60_000);

  const statusOf = async (queue: string) => {
    const counts = await store.countTasks();
    const of = (status: string) => counts.filter((row) => row.queue === queue && row.status === status).reduce((sum, row) => sum + row.count, 0);
    return { pending: of("pending"), running: of("running"), succeeded: of("succeeded") };
  };

  it("the workers recorded the declared limits in the queue rows; the worker without them keeps to them", async () => {
    const rows = await store.listQueues();
    expect(rows.map(({ queue, concurrency, rateLimit, pausedAt }) => ({ queue, concurrency, rateLimit, pausedAt }))).toEqual([
      { queue: "limited", concurrency: QUEUE_LIMIT, rateLimit: null, pausedAt: null },
      { queue: "rated", concurrency: null, rateLimit: RATE, pausedAt: null },
    ]);
    expect(workers.get("w3")!.logged("queue limited in the database beyond this worker's queueLimits")).toBe(true);
  });

  it("a paused queue starts nothing and loses nothing under load; resumed, it runs every task once", { timeout: 120_000 }, async () => {
    const ids = (await client.task.enqueueMany(Array.from({ length: 40 }, () => ({ name: "free", payload: { ms: 40 } })))).map((task) => task.id);
    await waitUntil(() => readControlLog(log).filter((event) => event.queue === "free" && event.e === "end").length >= 5, "the first runs", 30_000);
    expect(await store.pauseQueue("free")).toBe(true);
    const pausedBy = (await store.now()).getTime();
    await waitUntil(async () => (await statusOf("free")).running === 0, "the runs under way to finish", 30_000);
    const { pending } = await statusOf("free");
    expect(pending).toBeGreaterThan(0);
    // Five poll intervals of every worker, on the database clock, with nothing claimed.
    const until = pausedBy + 500;
    await waitUntil(async () => (await store.now()).getTime() > until, "500 ms of the database clock", 10_000);
    expect(await statusOf("free")).toMatchObject({ pending, running: 0 });
    const lateClaims = readControlLog(log).filter((event) => event.queue === "free" && event.e === "start" && event.claimedAt > pausedBy);
    expect(lateClaims, "no claim after the pause committed").toEqual([]);
    expect((await store.resumeQueue("free", 1000)).resumed).toBe(true);
    await waitUntil(async () => (await statusOf("free")).succeeded === ids.length, "every task of the resumed queue", 60_000);
    const starts = readControlLog(log).filter((event) => event.queue === "free" && event.e === "start");
    expect(starts.map((event) => event.id).sort()).toEqual([...ids].sort());
  });

  it("the rate of starts holds in every window over the workers", { timeout: 120_000 }, async () => {
    const count = 3 * RATE.starts;
    await client.task.enqueueMany(Array.from({ length: count }, () => ({ name: "rated", payload: { ms: 10 } })));
    await waitUntil(async () => (await statusOf("rated")).succeeded === count, "every rated task", 60_000);
    const starts = readControlLog(log)
      .filter((event) => event.queue === "rated" && event.e === "start")
      .map((event) => event.t);
    expect(starts).toHaveLength(count);
    // A handler starts a few milliseconds after its claim: windows 50 ms shorter than the rate's cannot hold a start
    // claimed in the window before.
    expect(mostStartsWithin(starts, RATE.perMs - 50)).toBeLessThanOrEqual(RATE.starts);
    expect(Math.max(...starts) - Math.min(...starts), "the rate spreads the starts").toBeGreaterThanOrEqual((count / RATE.starts - 1) * RATE.perMs - 100);
  });

  it("a queue's and a key's concurrency hold over the workers, also while one holding slots is SIGKILLed", { timeout: 180_000 }, async () => {
    const accounts = ["a", "b", "c", "d", "e"];
    const ids = (
      await client.task.enqueueMany(
        Array.from({ length: 40 }, (_, i) => ({ name: "account", payload: { ms: i < 10 ? 1000 : 60, account: accounts[i % accounts.length]! } })),
      )
    ).map((task) => task.id);
    // The worker that frees a slot polls at once, so one worker may keep the queue's slots: kill whichever holds one of
    // the long runs, in the middle of it.
    let holder: string | undefined;
    await waitUntil(
      () => {
        const events = readControlLog(log).filter((event) => event.queue === "limited");
        const open = new Map<string, string>();
        for (const event of events) {
          if (event.e === "start" && event.ms >= 1000) open.set(event.id, event.worker);
          else open.delete(event.id);
        }
        holder = [...open.values()][0];
        return holder !== undefined;
      },
      "a worker to hold a limited task",
      60_000,
    );
    const victim = workers.get(holder!)!;
    await victim.kill();
    killedAt.set(holder!, Date.now());
    workers.delete(holder!);
    await waitUntil(async () => (await statusOf("limited")).succeeded === ids.length, "every limited task, the killed worker's recovered", 120_000);
    const runs = runIntervals(readControlLog(log), killedAt).filter((run) => run.queue === "limited");
    expect(new Set(runs.map((run) => run.id)).size).toBe(ids.length);
    expect(
      runs.some((run) => killedAt.get(holder!) === run.end),
      "a run was cut by the kill",
    ).toBe(true);
    expect(mostAtOnce(runs), "the queue's concurrency").toBeLessThanOrEqual(QUEUE_LIMIT);
    expect(mostAtOnce(runs), "the queue's slots were used").toBeGreaterThanOrEqual(2);
    for (const account of accounts) expect(mostAtOnce(runs.filter((run) => run.key === account)), `account ${account}`).toBe(1);
  });
});
