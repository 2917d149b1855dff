// Completing tasks on PostgreSQL takes one of four statements: one id or many, with results or without (only the ids
// travel). Each stores the same row: succeeded, the result (JSON null as SQL NULL), finished_by, no lease; and each
// leaves alone a task whose lease another worker holds.

import pg from "pg";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../src/index.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";

let database: TestDatabase;
let sql: pg.Pool;
let store: Store;

beforeAll(async () => {
  database = await createTestDatabase();
  sql = new pg.Pool({ connectionString: database.url, max: 2 });
  store = openStore(database.url, { max: 2 });
});

afterAll(async () => {
  await store?.close();
  await sql?.end();
  await database?.drop();
});

/** `count` running tasks leased to `owner`. */
async function running(count: number, owner = "me"): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomUUID());
  await sql.query(
    `INSERT INTO tasks (id, name, queue, payload, status, run_at, attempts, lease_owner, lease_expires_at)
     SELECT unnest($1::uuid[]), 'send-report', 'default', '{}', 'running', now(), 1, $2, now() + interval '1 minute'`,
    [ids, owner],
  );
  return ids;
}

async function rows(ids: string[]) {
  const { rows } = await sql.query<{ id: string; status: string; result: unknown; result_is_null: boolean; finished_by: string | null; lease_owner: string | null; finished: boolean }>(
    `SELECT id::text, status, result, result IS NULL AS result_is_null, finished_by, lease_owner, finished_at IS NOT NULL AS finished
     FROM tasks WHERE id = ANY($1::uuid[])`,
    [ids],
  );
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id) => byId.get(id)!);
}

const succeeded = (result: unknown) => ({ status: "succeeded", result, result_is_null: result === null, finished_by: "me", lease_owner: null, finished: true });

describe("complete on PostgreSQL", () => {
  it("one task without a result, one with", async () => {
    const [plain, withResult] = await running(2);
    expect(await store.complete("me", [{ id: plain!, resultJson: "null" }])).toEqual([plain]);
    expect(await store.complete("me", [{ id: withResult!, resultJson: '{"sent":3}' }])).toEqual([withResult]);
    expect(await rows([plain!, withResult!])).toMatchObject([succeeded(null), succeeded({ sent: 3 })]);
  });

  it("a batch without results, and a batch mixing results and none", async () => {
    const plain = await running(3);
    expect((await store.complete("me", plain.map((id) => ({ id, resultJson: "null" })))).sort()).toEqual([...plain].sort());
    expect(await rows(plain)).toMatchObject(plain.map(() => succeeded(null)));
    const mixed = await running(3);
    const results = ["null", '"ok"', "[1,2]"];
    expect((await store.complete("me", mixed.map((id, i) => ({ id, resultJson: results[i]! })))).sort()).toEqual([...mixed].sort());
    expect(await rows(mixed)).toMatchObject([succeeded(null), succeeded("ok"), succeeded([1, 2])]);
  });

  it("leaves a task leased to another worker, alone or in a batch, with or without results", async () => {
    const [theirs] = await running(1, "someone-else");
    const mine = await running(2);
    expect(await store.complete("me", [{ id: theirs!, resultJson: "null" }])).toEqual([]);
    expect(await store.complete("me", [{ id: theirs!, resultJson: "1" }])).toEqual([]);
    expect(await store.complete("me", [theirs!, ...mine].map((id) => ({ id, resultJson: "null" })))).toHaveLength(2);
    expect((await rows([theirs!]))[0]).toMatchObject({ status: "running", lease_owner: "someone-else", finished: false });
  });
});
