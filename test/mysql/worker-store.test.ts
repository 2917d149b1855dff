// The worker's and cleaner's operations on MySQL beyond the conformance suite: why an id was not claimed (including a
// row another transaction holds), claimDue's order and its skipping of held rows, a heartbeat that meets a held row,
// markPublished skipping held rows, and the sessions of the store's own pool (READ COMMITTED, statement limit).

import type { Pool, PoolConnection } from "mariadb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { poolDb } from "../../src/dialects/mysql/pool-db.js";
import { openStore, type Store } from "../../src/index.js";
import { createMysqlTestDatabase, mysqlTestPool, type MysqlTestDatabase } from "../support/mysql-database.js";
import { insertMysqlRows, mysqlRowOf } from "./rows.js";

let database: MysqlTestDatabase;
let sql: Pool;
let store: Store;

beforeAll(async () => {
  database = await createMysqlTestDatabase();
  sql = mysqlTestPool(database, 3);
  store = openStore(database.url, { max: 3 });
});

afterAll(async () => {
  await store?.close();
  await sql?.end();
  await database?.drop();
});

const filter = (owner: string, names = ["send-report"], queues = ["default"]) => ({ owner, leaseMs: 30_000, names, queues });

/** Runs `fn` while another transaction holds `ids` locked (SELECT … FOR UPDATE). */
async function whileHeld<T>(ids: string[], fn: () => Promise<T>): Promise<T> {
  const holder: PoolConnection = await sql.getConnection();
  try {
    await holder.beginTransaction();
    await holder.query(`SELECT id FROM tasks WHERE id IN (${ids.map(() => "?").join(", ")}) FOR UPDATE`, ids);
    return await fn();
  } finally {
    await holder.rollback();
    await holder.release();
  }
}

describe("claimByIds", () => {
  it("says why each id was not claimed: missing, not pending, not due, not ours, locked", async () => {
    const [done, later, other, held, free] = await insertMysqlRows(sql, [
      { status: "succeeded", finishedAgoMs: 10 },
      { runAgoMs: -60_000 },
      { name: "other-task" },
      {},
      {},
    ]);
    const missing = "01930000-0000-7000-8000-0000000000aa";
    const results = await whileHeld([held!], () => store.claimByIds([done!, later!, other!, held!, free!, missing], filter("reasons")));
    expect(results.map((r) => (r.claimed ? "claimed" : r.reason))).toEqual(["not-pending", "not-due", "not-ours", "locked", "claimed", "missing"]);
    expect(results[3]).toMatchObject({ name: "send-report", queue: "default" });
    expect(await mysqlRowOf(sql, held!)).toMatchObject({ status: "pending", attempts: 0 });
    expect(await mysqlRowOf(sql, free!)).toMatchObject({ status: "running", attempts: 1, lease_owner: "reasons" });
    // The claimed record is built from the locked row and the values written (no UPDATE … RETURNING): it must be the row.
    const { now: _now, ...stored } = (await store.findTask(free!))!;
    expect(results[4]!.claimed).toEqual(stored);
  });
});

describe("claimDue", () => {
  it("takes the highest priority first, then the oldest run_at, skipping rows another transaction holds", async () => {
    await sql.query("DELETE FROM tasks");
    const [low, highNew, highOld, held] = await insertMysqlRows(sql, [{ runAgoMs: 5000 }, { runAgoMs: 1000 }, { runAgoMs: 3000 }, { runAgoMs: 9000 }]);
    await sql.query("UPDATE tasks SET priority = 5 WHERE id IN (?, ?, ?)", [highNew, highOld, held]);
    const first = await whileHeld([held!], () => store.claimDue(2, filter("due")));
    expect(first.map((task) => task.id)).toEqual([highOld, highNew]);
    expect(first.every((task) => task.status === "running" && task.attempts === 1 && task.leaseOwner === "due")).toBe(true);
    const rest = await store.claimDue(10, filter("due"));
    expect(rest.map((task) => task.id)).toEqual([held, low]);
    expect(await store.claimDue(10, filter("due"))).toEqual([]);
  });

  it("across queues takes the best of all of them, leaves the rest pending and claimable, and only its names", async () => {
    await sql.query("DELETE FROM tasks");
    const [mailOld, mailNew, imageHigh, imageLow, otherName] = await insertMysqlRows(sql, [
      { queue: "mail", runAgoMs: 8000 },
      { queue: "mail", runAgoMs: 1000 },
      { queue: "images", runAgoMs: 500 },
      { queue: "images", runAgoMs: 9000 },
      { queue: "mail", name: "other-task", runAgoMs: 20_000 },
    ]);
    await sql.query("UPDATE tasks SET priority = 1 WHERE id = ?", [imageHigh]);
    const both = filter("multi", ["send-report"], ["mail", "images"]);
    expect((await store.claimDue(2, both)).map((task) => task.id)).toEqual([imageHigh, imageLow]);
    expect((await store.claimDue(5, both)).map((task) => task.id)).toEqual([mailOld, mailNew]);
    expect((await mysqlRowOf(sql, otherName!))?.status).toBe("pending");
  });
});

describe("heartbeat and marks", () => {
  it("extendLeases: extended, lost, or neither while another transaction holds the row", async () => {
    const [mine, held, theirs] = await insertMysqlRows(sql, [{ status: "running" }, { status: "running" }, { status: "running" }]);
    await sql.query("UPDATE tasks SET lease_owner = 'beat' WHERE id IN (?, ?)", [mine, held]);
    const states = await whileHeld([held!], () => store.extendLeases("beat", [mine!, held!, theirs!], 60_000));
    expect(states).toEqual([
      { id: mine, extended: true, lost: false },
      { id: held, extended: false, lost: false },
      { id: theirs, extended: false, lost: true },
    ]);
    expect((await mysqlRowOf(sql, mine!))?.lease_expires_at.getTime()).toBeGreaterThan(Date.now() + 50_000);
  });

  it("markPublished marks due pending tasks and skips held or future ones; markUnpublished clears", async () => {
    const [due, held, future] = await insertMysqlRows(sql, [{}, {}, { runAgoMs: -60_000 }]);
    expect(await whileHeld([held!], () => store.markPublished([due!, held!, future!]))).toBe(1);
    expect((await mysqlRowOf(sql, due!))?.published_at).toBeInstanceOf(Date);
    expect((await mysqlRowOf(sql, held!))?.published_at).toBeNull();
    expect(await store.markUnpublished([due!, held!, future!])).toBe(1);
    expect((await mysqlRowOf(sql, due!))?.published_at).toBeNull();
  });

  it("finds unpublished and stale tasks by the database clock", async () => {
    await sql.query("DELETE FROM tasks");
    const [fresh, old, delayed, stale] = await insertMysqlRows(sql, [
      { createdAgoMs: 100 },
      { createdAgoMs: 20_000 },
      { createdAgoMs: 20_000, runAgoMs: 1000 },
      { createdAgoMs: 60_000, publishedAgoMs: 50_000 },
    ]);
    expect((await store.findUnpublished({ graceMs: 5000, limit: 10 })).map((t) => t.id).sort()).toEqual([old, delayed].sort());
    expect(fresh).toBeDefined();
    expect(await store.queuesWithStaleWakeups(30_000)).toEqual(["default"]);
    expect(await store.findStaleWakeups({ republishAfterMs: 30_000, queues: ["default"], limit: 10 })).toEqual([{ id: stale, queue: "default" }]);
  });
});

describe("the store's own transactions and statements", () => {
  it("run READ COMMITTED whatever the session's level, and carry the statement limit the dashboard asks for", async () => {
    const limited = poolDb(database.url, { max: 1, statementTimeoutMs: 1500 });
    try {
      const level = await limited.transaction(async (tx) => {
        await tx.query("SELECT id FROM tasks LIMIT 1 FOR UPDATE", []); // starts the InnoDB transaction
        return tx.query<{ level: string }>(
          "SELECT trx_isolation_level AS level FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = CONNECTION_ID()",
          [],
        );
      });
      expect(level).toEqual([{ level: "READ COMMITTED" }]);
      const started = Date.now();
      await expect(limited.query("SELECT SLEEP(5) AS slept FROM tasks LIMIT 1", [])).rejects.toThrow(
        /max_statement_time|maximum statement execution time|interrupted/i,
      );
      expect(Date.now() - started).toBeLessThan(4000);
    } finally {
      await limited.close();
    }
  });
});

describe("complete", () => {
  const owner = "vanished-worker:1"; // the lease owner insertMysqlRows gives running rows
  it("stores no result for a batch without results, and each row's own result in a mixed batch", async () => {
    const plain = await insertMysqlRows(sql, [{ status: "running" }, { status: "running" }]);
    expect((await store.complete(owner, plain.map((id) => ({ id, resultJson: "null" })))).sort()).toEqual([...plain].sort());
    const mixed = await insertMysqlRows(sql, [{ status: "running" }, { status: "running" }, { status: "running" }]);
    const results = ["null", '{"sent":3}', '"ok"'];
    expect(await store.complete(owner, mixed.map((id, i) => ({ id, resultJson: results[i]! })))).toHaveLength(3);
    for (const id of [...plain, mixed[0]!]) expect(await mysqlRowOf(sql, id)).toMatchObject({ status: "succeeded", result: null, lease_owner: null });
    expect((await mysqlRowOf(sql, mixed[1]!))!.result).toEqual({ sent: 3 });
    expect((await mysqlRowOf(sql, mixed[2]!))!.result).toBe("ok");
  });

  it("leaves a task whose lease another worker holds", async () => {
    const [theirs] = await insertMysqlRows(sql, [{ status: "running" }]);
    expect(await store.complete("someone-else", [{ id: theirs!, resultJson: "null" }])).toEqual([]);
    expect(await mysqlRowOf(sql, theirs!)).toMatchObject({ status: "running", lease_owner: owner });
  });
});
