// The store's own connection with commits that do not wait for the WAL flush: the setting holds inside that
// transaction only, never on the session the pool hands out next, and a failed statement leaves a sound connection.

import { afterAll, beforeAll, expect, it } from "vitest";
import { ownDb, type PgOwnDb } from "../../src/dialects/postgres/own-db.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";

let db: TestDatabase;
let own: PgOwnDb;

beforeAll(async () => {
  db = await createTestDatabase();
  // One connection: every statement below runs on the same session.
  own = ownDb(db.url, { max: 1 });
});

afterAll(async () => {
  await own?.close();
  await db?.drop();
});

const setting = async (run: (sql: string) => Promise<Array<{ synchronous_commit: string }>>) => (await run("SHOW synchronous_commit"))[0]!.synchronous_commit;

it("turns synchronous_commit off for its own statements and transactions only, never for the session", async () => {
  expect(await setting((sql) => own.query(sql, []))).toBe("on");
  expect(await setting((sql) => own.asyncCommit.query(sql, []))).toBe("off");
  expect(await setting((sql) => own.asyncCommit.query(sql, [], "ptq_show_setting"))).toBe("off");
  expect(await own.asyncCommit.transaction!((tx) => setting((sql) => tx.query(sql, [])))).toBe("off");
  expect(await setting((sql) => own.query(sql, []))).toBe("on");
  expect(await own.transaction((tx) => setting((sql) => tx.query(sql, [])))).toBe("on");
});

it("commits its writes (another session sees them) and rolls back a failed statement, leaving the connection sound", async () => {
  await own.query("CREATE TABLE async_commit_rows (id int PRIMARY KEY)", []);
  await own.asyncCommit.query("INSERT INTO async_commit_rows VALUES (1)", []);
  await expect(own.asyncCommit.query("INSERT INTO async_commit_rows VALUES (2), (1)", [])).rejects.toThrow(/duplicate key/);
  const other = ownDb(db.url, { max: 1 });
  try {
    expect(await other.query("SELECT id FROM async_commit_rows ORDER BY id", [])).toEqual([{ id: 1 }]);
  } finally {
    await other.close();
  }
  expect(await setting((sql) => own.query(sql, []))).toBe("on");
});
