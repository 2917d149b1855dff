// The dashboard's SQL units against the real PostgreSQL, with and without the browse index: the task list pages
// through exactly what a plain ORDER BY id DESC returns for every filter, counts are exact up to the limit and flagged
// as estimates above it, and throughput, workers and stuck tasks are read by the database's clock.

import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../src/index.js";
import type { TaskFilter } from "../../src/store/views.js";
import { idAtTime, parseListQuery } from "../../src/dashboard/list-query.js";
import { uuidv7 } from "../../src/uuid.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { createBrowseIndex, dropBrowseIndex, insertTask } from "./fixtures.js";

let database: TestDatabase;
let sql: pg.Pool;
let db: Store;

beforeAll(async () => {
  database = await createTestDatabase();
  sql = new pg.Pool({ connectionString: database.url, max: 2 });
  db = openStore(database.url, { max: 2 });
  // 300 tasks over 3 queues, 4 names and every status, with ids spread over the last 5 hours.
  await sql.query(
    `INSERT INTO tasks (id, name, queue, payload, status, run_at, attempts, lease_owner, lease_expires_at, key, finished_at, created_at)
     SELECT (lpad(to_hex((extract(epoch FROM now() - (300 - i) * interval '1 minute') * 1000)::bigint), 12, '0') || '7'
               || substr(md5(i::text), 1, 3) || '8' || substr(md5(i::text), 4, 15))::uuid,
            (ARRAY['mail-a', 'mail-b', 'image', 'rare'])[CASE WHEN i % 50 = 0 THEN 4 ELSE i % 3 + 1 END],
            (ARRAY['mail', 'mail', 'images', 'default'])[CASE WHEN i % 50 = 0 THEN 4 ELSE i % 3 + 1 END],
            jsonb_build_object('i', i),
            (ARRAY['pending', 'running', 'succeeded', 'dead', 'cancelled', 'succeeded', 'succeeded'])[i % 7 + 1],
            now() + CASE WHEN i % 2 = 0 THEN interval '1 hour' ELSE interval '-1 hour' END, 1,
            CASE WHEN i % 7 = 1 THEN 'w-' || (i % 2) END,
            CASE WHEN i % 7 = 1 THEN now() + CASE WHEN i % 4 < 2 THEN interval '-1 minute' ELSE interval '1 minute' END END,
            CASE WHEN i % 10 = 0 THEN 'k-' || i END,
            CASE WHEN i % 7 IN (2, 3, 4, 5, 6) THEN now() - (i % 50) * interval '1 minute' END,
            now() - (300 - i) * interval '1 minute'
     FROM generate_series(1, 300) AS i`,
  );
});

afterAll(async () => {
  await db?.close();
  await sql?.end();
  await database?.drop();
});

const FILTERS: Array<[string, TaskFilter, string, unknown[]]> = [
  ["none", {}, "true", []],
  ["status", { status: "dead" }, "status = 'dead'", []],
  ["due", { status: "due" }, "status = 'pending' AND run_at <= now()", []],
  ["expired", { status: "expired" }, "status = 'running' AND lease_expires_at < now()", []],
  ["name", { name: "mail-b" }, "name = 'mail-b'", []],
  ["rare name", { name: "rare" }, "name = 'rare'", []],
  ["queue", { queue: "mail" }, "queue = 'mail'", []],
  ["queue + status", { queue: "mail", status: "succeeded" }, "queue = 'mail' AND status = 'succeeded'", []],
  ["name + status", { name: "image", status: "pending" }, "name = 'image' AND status = 'pending'", []],
  ["key", { key: "k-120" }, "key = 'k-120'", []],
  ["unknown name", { name: "nope" }, "name = 'nope'", []],
];

async function walk(filter: TaskFilter, browse: boolean, limit: number): Promise<string[]> {
  const groups = browse ? await db.listTaskGroups({ queue: filter.queue, name: filter.name }) : undefined;
  const ids: string[] = [];
  let before: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const page = await db.listTasks(filter, { limit, before }, groups);
    ids.push(...page.rows.map((row) => row.id));
    if (!page.hasOlder) break;
    before = page.rows[page.rows.length - 1]!.id;
  }
  return ids;
}

async function expected(where: string, values: unknown[] = []): Promise<string[]> {
  return (await sql.query<{ id: string }>(`SELECT id::text AS id FROM tasks WHERE ${where} ORDER BY id DESC`, values)).rows.map((r) => r.id);
}

for (const browse of [false, true]) {
  describe(browse ? "with the browse index" : "without the browse index", () => {
    beforeAll(async () => {
      if (browse) await createBrowseIndex(sql);
      else await dropBrowseIndex(sql);
    });

    it("is detected", async () => {
      expect(await db.hasBrowseIndex()).toBe(browse);
    });

    it.each(FILTERS)("pages through exactly the matching tasks, newest first (%s)", async (_label, filter, where, values) => {
      const want = await expected(where, values);
      expect(await walk(filter, browse, 7)).toEqual(want);
    });

    it("filters by enqueue time through the uuidv7 id", async () => {
      const from = Date.now() - 120 * 60_000;
      const to = Date.now() - 60 * 60_000;
      const ids = await walk({ fromId: idAtTime(from), toId: idAtTime(to), status: "succeeded" }, browse, 10);
      const want = await expected(`status = 'succeeded' AND id >= $1::uuid AND id < $2::uuid`, [idAtTime(from), idAtTime(to)]);
      expect(ids).toEqual(want);
      expect(want.length).toBeGreaterThan(10);
    });

    it("pages back to newer tasks with after=", async () => {
      const groups = browse ? await db.listTaskGroups() : undefined;
      const all = await expected("status = 'succeeded'");
      const page = await db.listTasks({ status: "succeeded" }, { limit: 5, after: all[12] }, groups);
      expect(page.rows.map((row) => row.id)).toEqual(all.slice(7, 12));
      expect(page.hasNewer).toBe(true);
      const first = await db.listTasks({ status: "succeeded" }, { limit: 5, after: all[3] }, groups);
      expect(first.rows.map((row) => row.id)).toEqual(all.slice(0, 3));
      expect(first.hasNewer).toBe(false);
    });

    it("counts exactly up to the limit and estimates (flagged) above it", async () => {
      const truth = await sql.query<{ queue: string; name: string; status: string; count: number }>(
        "SELECT queue, name, status, count(*)::int AS count FROM tasks GROUP BY 1, 2, 3",
      );
      const groups = browse ? await db.listTaskGroups() : undefined;
      const counts = await db.countGroups({ groups, exactLimit: 20, sampleRows: 1_000_000 });
      expect(counts).toHaveLength(truth.rows.length);
      for (const row of truth.rows) {
        const got = counts.find((c) => c.queue === row.queue && c.name === row.name && c.status === row.status)!;
        if (!browse || row.count <= 20) expect(got, JSON.stringify(row)).toMatchObject({ count: row.count, estimated: false });
        else expect(got.estimated && got.count >= 20, JSON.stringify({ row, got })).toBe(true);
      }
      if (browse) {
        // A 100% sample (the table is small) makes the estimate exact: it is the sample's scaling that is tested.
        const big = truth.rows.filter((row) => row.count > 20);
        expect(big.length).toBeGreaterThan(0);
        for (const row of big) {
          expect(counts.find((c) => c.queue === row.queue && c.name === row.name && c.status === row.status)?.count).toBe(row.count);
        }
      }
    });
  });
}

describe("overview units", () => {
  it("buckets finished tasks per minute over the last hour by the database clock", async () => {
    const { minutes, byName } = await db.finishedPerMinute();
    expect(minutes).toHaveLength(61);
    expect(minutes[60]!.minute - minutes[0]!.minute).toBe(3600);
    const truth = await sql.query<{ succeeded: number; dead: number }>(
      `SELECT count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded, count(*) FILTER (WHERE status = 'dead')::int AS dead
       FROM tasks WHERE finished_at >= date_trunc('minute', now()) - interval '60 minutes'`,
    );
    expect(minutes.reduce((sum, m) => sum + m.succeeded, 0)).toBe(truth.rows[0]!.succeeded);
    expect(minutes.reduce((sum, m) => sum + m.dead, 0)).toBe(truth.rows[0]!.dead);
    expect(byName.reduce((sum, n) => sum + n.dead, 0)).toBe(truth.rows[0]!.dead);
  });

  it("lists the lease owners of running tasks with their expired leases", async () => {
    const workers = await db.recentWorkers(600);
    const truth = await sql.query<{ worker: string; running: number; expired: number }>(
      `SELECT lease_owner AS worker, count(*)::int AS running, count(*) FILTER (WHERE lease_expires_at < now())::int AS expired
       FROM tasks WHERE status = 'running' GROUP BY 1 ORDER BY 1`,
    );
    expect(workers.map(({ worker, running, expired }) => ({ worker, running, expired })).sort((a, b) => a.worker.localeCompare(b.worker))).toEqual(truth.rows);
  });

  it("reports per task what is stuck and since when", async () => {
    const neverWoken = await insertTask(sql, { name: "stuck-demo", queue: "stuck", runInSeconds: -120, published: false });
    await insertTask(sql, { name: "stuck-demo", queue: "stuck", status: "running", leaseInSeconds: -90 });
    await insertTask(sql, { name: "stuck-demo", queue: "stuck", runInSeconds: 600, attempts: 2, lastError: "Error: later" });
    const stuck = (await db.stuckTasks(30)).find((g) => g.name === "stuck-demo")!;
    expect(stuck).toMatchObject({ queue: "stuck", expired: 1, due: 1, scheduled: 1, unpublished: 1, retrying: 1 });
    expect(stuck.oldestDueSeconds).toBeGreaterThanOrEqual(119);
    expect(stuck.oldestExpiredSeconds).toBeGreaterThanOrEqual(89);
    expect(neverWoken).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("list query parsing", () => {
  it("reads filters, turns the time range into id bounds, and explains what it ignores", () => {
    const id = uuidv7();
    const query = parseListQuery(new URLSearchParams({ status: "expired", queue: " mail ", from: "2026-01-02T03:04", to: "2026-01-02T05:00", before: id }));
    expect(query.filter).toEqual({
      status: "expired",
      queue: "mail",
      fromId: idAtTime(Date.UTC(2026, 0, 2, 3, 4)),
      toId: idAtTime(Date.UTC(2026, 0, 2, 5, 1)),
    });
    expect(query.page).toEqual({ limit: 50, before: id });
    const bad = parseListQuery(new URLSearchParams({ status: "stuck", from: "yesterday", before: "x" }));
    expect(bad.problems).toEqual([
      'Unknown status "stuck": use one of pending, running, succeeded, dead, cancelled, due, expired.',
      '"yesterday" is not a time for "from": use YYYY-MM-DDTHH:MM (UTC).',
      "The page cursor is not a task id; showing the newest tasks.",
    ]);
    expect(bad.filter).toEqual({});
    expect(idAtTime(0x0123456789ab)).toBe("01234567-89ab-0000-0000-000000000000");
  });
});
