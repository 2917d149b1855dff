// The sessions of the MySQL store's own pool: its transactions run READ COMMITTED whatever the session's level, and
// its statements carry the limit the dashboard asks for. (What each store operation does: test/conformance/store/.)

import { afterAll, beforeAll, expect, it } from "vitest";
import { ownDb } from "../../src/dialects/mysql/own-db.js";
import { openStore } from "../../src/index.js";
import { prepared, sendInsert } from "../conformance/store/bed.js";
import { createMysqlTestDatabase, type MysqlTestDatabase } from "../support/mysql-database.js";

let database: MysqlTestDatabase;

beforeAll(async () => {
  database = await createMysqlTestDatabase();
  const store = openStore(database.url, { max: 1 });
  await sendInsert(store, [prepared()]); // a row to lock, so that the transaction below starts in InnoDB
  await store.close();
});

afterAll(async () => {
  await database?.drop();
});

it("run READ COMMITTED whatever the session's level, and carry the statement limit the dashboard asks for", async () => {
  const limited = ownDb(database.url, { max: 1, statementTimeoutMs: 1500 });
  try {
    const level = await limited.transaction(async (tx) => {
      await tx.query("SELECT id FROM tasks LIMIT 1 FOR UPDATE", []); // starts the InnoDB transaction
      return tx.query<{ level: string }>("SELECT trx_isolation_level AS level FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = CONNECTION_ID()", []);
    });
    expect(level).toEqual([{ level: "READ COMMITTED" }]);
    const started = Date.now();
    await expect(limited.query("SELECT SLEEP(5) AS slept FROM tasks LIMIT 1", [])).rejects.toThrow(/max_statement_time|maximum statement execution time|interrupted/i);
    expect(Date.now() - started).toBeLessThan(4000);
  } finally {
    await limited.close();
  }
});
