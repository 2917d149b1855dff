// The dashboard's views on MySQL against the real MariaDB, with and without the browse index: the task list pages
// through exactly what a plain ORDER BY id DESC returns for every filter, counts are exact up to the limit and flagged
// as estimates above it, and throughput, workers and stuck tasks are read by the database's clock.

import { randomBytes } from "node:crypto";
import type { Pool } from "mariadb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { idAtTime } from "../../src/dashboard/list-query.js";
import { openStore, type Store } from "../../src/index.js";
import type { TaskFilter } from "../../src/store/views.js";
import { createMysqlTestDatabase, mysqlTestPool, type MysqlTestDatabase } from "../support/mysql-database.js";

let database: MysqlTestDatabase;
let sql: Pool;
let db: Store;

const NAMES = ["mail-a", "mail-b", "image", "rare"];
const QUEUES = ["mail", "mail", "images", "default"];
const STATUSES = ["pending", "running", "succeeded", "dead", "cancelled", "succeeded", "succeeded"];

/** A uuidv7-shaped id at `ms` with random low bits. */
function idAt(ms: number): string {
  const hex = ms.toString(16).padStart(12, "0") + "7" + randomBytes(10).toString("hex").slice(0, 19);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

beforeAll(async () => {
  database = await createMysqlTestDatabase();
  sql = mysqlTestPool(database);
  db = openStore(database.url, { max: 2 });
  // 300 tasks over 3 queues, 4 names and every status, with ids spread over the last 5 hours.
  const rows: unknown[][] = [];
  for (let i = 1; i <= 300; i++) {
    const kind = i % 50 === 0 ? 3 : i % 3;
    const status = STATUSES[i % 7]!;
    rows.push([
      idAt(Date.now() - (300 - i) * 60_000),
      NAMES[kind],
      QUEUES[kind],
      JSON.stringify({ i }),
      status,
      i % 2 === 0 ? 3600 : -3600,
      i % 7 === 1 ? `w-${i % 2}` : null,
      i % 7 === 1 ? (i % 4 < 2 ? -60 : 60) : null,
      i % 10 === 0 ? `k-${i}` : null,
      [2, 3, 4, 5, 6].includes(i % 7) ? (i % 50) * 60 : null,
      (300 - i) * 60,
    ]);
  }
  await sql.batch(
    `INSERT INTO tasks (id, name, queue, payload, status, run_at, attempts, lease_owner, lease_expires_at, \`key\`, finished_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, UTC_TIMESTAMP(6) + INTERVAL ? SECOND, 1, ?, UTC_TIMESTAMP(6) + INTERVAL ? SECOND, ?,
             UTC_TIMESTAMP(6) - INTERVAL ? SECOND, UTC_TIMESTAMP(6) - INTERVAL ? SECOND, UTC_TIMESTAMP(6))`,
    rows,
  );
});

afterAll(async () => {
  await db?.close();
  await sql?.end();
  await database?.drop();
});

const FILTERS: Array<[string, TaskFilter, string]> = [
  ["none", {}, "TRUE"],
  ["status", { status: "dead" }, "status = 'dead'"],
  ["due", { status: "due" }, "status = 'pending' AND run_at <= UTC_TIMESTAMP(6)"],
  ["expired", { status: "expired" }, "status = 'running' AND lease_expires_at < UTC_TIMESTAMP(6)"],
  ["name", { name: "mail-b" }, "name = 'mail-b'"],
  ["rare name", { name: "rare" }, "name = 'rare'"],
  ["queue", { queue: "mail" }, "queue = 'mail'"],
  ["queue + status", { queue: "mail", status: "succeeded" }, "queue = 'mail' AND status = 'succeeded'"],
  ["name + status", { name: "image", status: "pending" }, "name = 'image' AND status = 'pending'"],
  ["key", { key: "k-120" }, "`key` = 'k-120'"],
  ["unknown name", { name: "nope" }, "name = 'nope'"],
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
  return ((await sql.query(`SELECT id FROM tasks WHERE ${where} ORDER BY id DESC`, values)) as Array<{ id: string }>).map((r) => r.id);
}

for (const browse of [false, true]) {
  describe(browse ? "with the browse index" : "without the browse index", () => {
    beforeAll(async () => {
      if (browse) await sql.query(db.browseIndexAdvice());
    });

    it("is detected", async () => {
      expect(await db.hasBrowseIndex()).toBe(browse);
    });

    it.each(FILTERS)("pages through exactly the matching tasks, newest first (%s)", async (_label, filter, where) => {
      const want = await expected(where);
      expect(await walk(filter, browse, 7)).toEqual(want);
    });

    it("filters by enqueue time through the uuidv7 id", async () => {
      const from = Date.now() - 120 * 60_000;
      const to = Date.now() - 60 * 60_000;
      const ids = await walk({ fromId: idAtTime(from), toId: idAtTime(to), status: "succeeded" }, browse, 10);
      const want = await expected(`status = 'succeeded' AND id >= ? AND id < ?`, [idAtTime(from), idAtTime(to)]);
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
      const truth = (await sql.query("SELECT queue, name, status, COUNT(*) AS count FROM tasks GROUP BY queue, name, status")) as Array<{
        queue: string;
        name: string;
        status: string;
        count: number;
      }>;
      const groups = browse ? await db.listTaskGroups() : undefined;
      const counts = await db.countGroups({ groups, exactLimit: 20 });
      expect(counts).toHaveLength(truth.length);
      const big = truth.filter((row) => row.count > 20);
      expect(big.length).toBeGreaterThan(0);
      for (const row of truth) {
        const got = counts.find((c) => c.queue === row.queue && c.name === row.name && c.status === row.status)!;
        if (!browse || row.count <= 20) expect(got, JSON.stringify(row)).toMatchObject({ count: row.count, estimated: false });
        // The optimizer's estimate from the browse index: at least the exact limit, and near the truth on a small table.
        else expect(got.estimated && got.count > 20 && Math.abs(got.count - row.count) <= row.count * 0.5, JSON.stringify({ row, got })).toBe(true);
      }
    });
  });
}

describe("overview units", () => {
  it("lists the (queue, name) pairs, pinned or not", async () => {
    expect(await db.listTaskGroups()).toEqual([
      { queue: "default", name: "rare" },
      { queue: "images", name: "image" },
      { queue: "mail", name: "mail-a" },
      { queue: "mail", name: "mail-b" },
    ]);
    expect(await db.listTaskGroups({ name: "image" })).toEqual([{ queue: "images", name: "image" }]);
    expect(await db.listTaskGroups({ queue: "mail", name: "image" })).toEqual([]);
  });

  it("buckets finished tasks per minute over the last hour by the database clock", async () => {
    const { minutes, byName } = await db.finishedPerMinute();
    expect(minutes).toHaveLength(61);
    expect(minutes[60]!.minute - minutes[0]!.minute).toBe(3600);
    expect(minutes[60]!.minute).toBe(Math.floor((await db.now()).getTime() / 60_000) * 60);
    const [truth] = (await sql.query(
      `SELECT SUM(status = 'succeeded') AS succeeded, SUM(status = 'dead') AS dead FROM tasks
       WHERE finished_at >= CAST(DATE_FORMAT(UTC_TIMESTAMP(6), '%Y-%m-%d %H:%i:00') AS DATETIME(6)) - INTERVAL 60 MINUTE`,
    )) as Array<{ succeeded: string; dead: string }>;
    expect(minutes.reduce((sum, m) => sum + m.succeeded, 0)).toBe(Number(truth!.succeeded));
    expect(minutes.reduce((sum, m) => sum + m.dead, 0)).toBe(Number(truth!.dead));
    expect(byName.reduce((sum, n) => sum + n.dead, 0)).toBe(Number(truth!.dead));
    expect(Number(truth!.dead)).toBeGreaterThan(0);
  });

  it("lists the lease owners of running tasks with their expired leases", async () => {
    const workers = await db.recentWorkers(600);
    const truth = (await sql.query(
      `SELECT lease_owner AS worker, COUNT(*) AS running, SUM(lease_expires_at < UTC_TIMESTAMP(6)) AS expired
       FROM tasks WHERE status = 'running' GROUP BY lease_owner ORDER BY lease_owner`,
    )) as Array<{ worker: string; running: number; expired: string }>;
    expect(workers.map(({ worker, running, expired }) => ({ worker, running, expired })).sort((a, b) => a.worker.localeCompare(b.worker))).toEqual(
      truth.map((row) => ({ worker: row.worker, running: Number(row.running), expired: Number(row.expired) })),
    );
    expect(workers.every((w) => w.idleSeconds >= 0 && w.lastSeen instanceof Date)).toBe(true);
  });

  it("reports per task what is stuck and since when", async () => {
    await sql.batch(
      `INSERT INTO tasks (id, name, queue, payload, status, run_at, attempts, lease_owner, lease_expires_at, published_at, last_error)
       VALUES (?, 'stuck-demo', 'stuck', '{}', ?, UTC_TIMESTAMP(6) + INTERVAL ? SECOND, ?, ?, UTC_TIMESTAMP(6) + INTERVAL ? SECOND, NULL, NULL)`,
      [
        [idAt(Date.now()), "pending", -120, 0, null, null],
        [idAt(Date.now()), "running", -300, 1, "w-stuck", -90],
        [idAt(Date.now()), "pending", 600, 2, null, null],
      ],
    );
    const stuck = (await db.stuckTasks(30)).find((g) => g.name === "stuck-demo")!;
    expect(stuck).toMatchObject({ queue: "stuck", expired: 1, due: 1, scheduled: 1, unpublished: 1, retrying: 1 });
    expect(stuck.oldestDueSeconds).toBeGreaterThanOrEqual(119);
    expect(stuck.oldestExpiredSeconds).toBeGreaterThanOrEqual(89);
    expect(stuck.oldestExpiredSeconds).toBeLessThan(200);
  });

  it("counts and ages due tasks per queue, and counts every status", async () => {
    const ages = await db.pendingAges();
    const [truth] = (await sql.query("SELECT COUNT(*) AS n FROM tasks WHERE queue = 'stuck' AND status = 'pending' AND run_at <= UTC_TIMESTAMP(6)")) as Array<{ n: number }>;
    expect(ages.find((a) => a.queue === "stuck")).toMatchObject({ due: Number(truth!.n) });
    expect(ages.find((a) => a.queue === "stuck")!.oldestDueSeconds).toBeGreaterThanOrEqual(119);
    const counts = await db.countTasks();
    expect(counts.reduce((sum, c) => sum + c.count, 0)).toBe(303);
  });
});
