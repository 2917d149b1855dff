// A pooled connection that breaks between two statements of a transaction: the transaction rejects, the process
// lives on (a checked-out pg client's 'error' has a listener) and the pool's next transaction gets a sound connection.

import type pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ownDb } from "../../src/dialects/postgres/own-db.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { TcpProxy } from "../support/tcp-proxy.js";

let db: TestDatabase;
let proxy: TcpProxy;

beforeAll(async () => {
  db = await createTestDatabase();
  const target = new URL(db.url);
  proxy = await new TcpProxy(target.hostname, Number(target.port || 5432)).start();
});

afterAll(async () => {
  await proxy?.stop();
  await db?.drop();
});

it("rejects the transaction whose connection broke between statements, and carries on", async () => {
  const own = ownDb(proxy.route(db.url), { max: 1 });
  try {
    let client: pg.PoolClient | undefined;
    own.pool.once("acquire", (acquired: pg.PoolClient) => (client = acquired));
    const broken = own.transaction(async (tx) => {
      await tx.query("SELECT 1", []);
      const ended = new Promise((resolve) => client!.once("end", resolve));
      proxy.cut();
      await ended; // the client emitted 'error' while no statement of it was running
      await tx.query("SELECT 2", []);
    });
    await expect(broken).rejects.toThrow();
    const rows = await own.transaction((tx) => tx.query<{ n: number }>("SELECT 3 AS n", []));
    expect(rows).toEqual([{ n: 3 }]);
  } finally {
    await own.close();
  }
});
