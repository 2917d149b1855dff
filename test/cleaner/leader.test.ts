// Leader election: any number of cleaners run, exactly one sweeps; when the leader dies (kill -9) its session ends,
// the lock is released, and another cleaner takes over within a few intervals.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { inject } from "vitest";
import { createCleaner } from "../../src/cleaner/create-cleaner.js";
import { silentLogger } from "../../src/index.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { uniquePrefix, WakeupCounter } from "../support/broker.js";
import { waitUntil } from "../support/wait.js";
import { cleanerTasks } from "../fixtures/cleaner-tasks.js";
import { openStore } from "../../src/index.js";
import { WorkerProcess } from "../support/worker-process.js";
import { TcpProxy } from "../support/tcp-proxy.js";
import { insertRows } from "./rows.js";

let db: TestDatabase;
let sql: pg.Pool;
let prefix: string;
let counter: WakeupCounter;
const children: WorkerProcess[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  sql = new pg.Pool({ connectionString: db.url, max: 2 });
  sql.on("error", () => {}); // pool.end() resolves before its sockets close; the database's DROP … WITH (FORCE) may hit one
  prefix = uniquePrefix();
  counter = await WakeupCounter.start(prefix, ["default"]);
});

afterAll(async () => {
  for (const child of children) await child.kill();
  await counter?.close();
  await sql?.end();
  await db?.drop();
});

describe("two cleaners in one process", () => {
  it("never lead at the same time, and the second takes over when the first stops", async () => {
    const options = { tasks: cleanerTasks, databaseUrl: db.url, intervalMs: 50, logger: silentLogger };
    const a = createCleaner(options);
    const b = createCleaner(options);
    try {
      await a.start();
      await b.start();
      let both = 0;
      const deadline = Date.now() + 1500;
      while (Date.now() < deadline) {
        if (a.isLeader && b.isLeader) both += 1;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(both).toBe(0);
      expect(Number(a.isLeader) + Number(b.isLeader)).toBe(1);
      const [leader, follower] = a.isLeader ? [a, b] : [b, a];
      await leader.stop();
      await waitUntil(() => follower.isLeader, "the follower to take over", 10_000);
      expect((await follower.runOnce()).leader).toBe(true);
    } finally {
      await a.stop();
      await b.stop();
    }
  });
});

describe("two cleaner processes", () => {
  it("only the leader sweeps; after kill -9 of the leader the other takes over within a few intervals", async () => {
    const env = { DATABASE_URL: db.url, AMQP_URL: inject("amqpUrl"), PREFIX: prefix, INTERVAL_MS: "200" };
    const first = await WorkerProcess.start(env, "test/fixtures/cleaner-process.ts", "cleaner started");
    children.push(first);
    await waitUntil(() => first.logged("cleaner is leading"), "the first cleaner to lead", 20_000);
    const second = await WorkerProcess.start(env, "test/fixtures/cleaner-process.ts", "cleaner started");
    children.push(second);
    await waitUntil(() => second.logged("cleaner started"), "the second cleaner to start", 20_000);

    const [lost] = await insertRows(sql, [{ createdAgoMs: 10_000 }]);
    await counter.waitFor(() => counter.counts.get(lost!) === 1, "the leader to wake the lost task", 15_000);
    await new Promise((resolve) => setTimeout(resolve, 600)); // three more intervals
    expect(second.logged("cleaner is leading"), `second: ${JSON.stringify(second.lines)}`).toBe(false);
    expect(second.logged("cleaner sweep")).toBe(false);
    expect(first.lines.some((line) => line.message === "cleaner sweep" && Number(line.published) >= 1)).toBe(true);

    const killedAt = Date.now();
    await first.kill();
    await waitUntil(() => second.logged("cleaner is leading"), "the second cleaner to take over", 15_000);
    const takeoverMs = Date.now() - killedAt;
    console.log(`takeover after kill -9 of the leader: ${takeoverMs} ms (interval 200 ms)`);

    const [later] = await insertRows(sql, [{ createdAgoMs: 10_000 }]);
    await counter.waitFor(() => counter.counts.get(later!) === 1, "the new leader to wake a lost task", 15_000);

    second.signal("SIGTERM");
    expect(await second.exited).toBe(0);
    expect(second.logged("cleaner stopped leading")).toBe(true);
  });
});

describe("losing the lock session", () => {
  it("stops leading at once when the server ends the session, and leads again on a new one", async () => {
    const cleaner = createCleaner({ tasks: cleanerTasks, databaseUrl: db.url, intervalMs: 100, logger: silentLogger });
    const probe = openStore(db.url, { max: 1 });
    try {
      await cleaner.start();
      await waitUntil(() => cleaner.isLeader, "the cleaner to lead");
      const holder = await probe.leaderHolder(probe.defaultLockKey());
      expect(holder?.holder).toBe("prisma-task-queue cleaner lock");
      await sql.query("SELECT pg_terminate_backend($1)", [holder!.pid]);
      await waitUntil(() => !cleaner.isLeader, "the cleaner to notice", 5000);
      await waitUntil(async () => cleaner.isLeader && (await probe.leaderHolder(probe.defaultLockKey()))?.pid !== holder!.pid,
        "the cleaner to lead again on a new session", 10_000);
    } finally {
      await cleaner.stop();
      await probe.close();
    }
  });

  it("a leader cut off by a partition gives up before the server frees the lock; then a follower takes over", async () => {
    const target = new URL(db.url);
    const proxy = await new TcpProxy(target.hostname, Number(target.port || 5432)).start();
    const options = { tasks: cleanerTasks, intervalMs: 200, lockKey: 777, logger: silentLogger };
    const cut = createCleaner({ ...options, databaseUrl: proxy.route(db.url) });
    const follower = createCleaner({ ...options, databaseUrl: db.url });
    try {
      await cut.start();
      await waitUntil(() => cut.isLeader, "the proxied cleaner to lead");
      await follower.start();
      proxy.partition();
      const partitionedAt = Date.now();
      let both = 0;
      let gaveUpAfter = -1;
      await waitUntil(() => {
        if (cut.isLeader && follower.isLeader) both += 1;
        if (!cut.isLeader && gaveUpAfter < 0) gaveUpAfter = Date.now() - partitionedAt;
        return follower.isLeader;
      }, "the follower to take over", 30_000);
      const tookOverAfter = Date.now() - partitionedAt;
      expect(both).toBe(0);
      expect(gaveUpAfter).toBeGreaterThanOrEqual(0);
      expect(gaveUpAfter).toBeLessThan(tookOverAfter);
      console.log(`partition: the cut-off leader gave up after ${gaveUpAfter} ms, the follower led after ${tookOverAfter} ms (interval 200 ms)`);
    } finally {
      await proxy.stop(); // unblocks the cut-off cleaner's pool so it can stop
      await cut.stop();
      await follower.stop();
    }
  });
});
