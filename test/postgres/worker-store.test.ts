// The worker's claim and completion statements on PostgreSQL, beyond the conformance suite.
// Claiming by id takes one statement for one id (`id = $1`) and another for several (`id = ANY($1)`): both say the same
// thing for every kind of id — claimed, missing, not pending, not due, not ours, and locked by another transaction
// (skipped, never waited for) — and leave the rows alike. Completing takes one of four statements: one id or many,
// with results or without (only the ids travel); each stores the same row (succeeded, the result with JSON null as SQL
// NULL, finished_by, no lease) and leaves alone a task whose lease another worker holds.

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
  sql = new pg.Pool({ connectionString: database.url, max: 3 });
  store = openStore(database.url, { max: 3 });
});

afterAll(async () => {
  await store?.close();
  await sql?.end();
  await database?.drop();
});

const filter = { owner: "claimer", leaseMs: 30_000, names: ["send-report"], queues: ["default"] };
const KINDS = ["claimed", "missing", "not-pending", "not-due", "not-ours", "locked"] as const;

/** One row for each kind of id (none for "missing"); returns the ids in KINDS order. */
async function rowsOfEveryKind(): Promise<string[]> {
  const ids = KINDS.map(() => randomUUID());
  const row = (id: string, name: string, status: string, runAt: string) =>
    sql.query(`INSERT INTO tasks (id, name, queue, payload, status, run_at) VALUES ($1, $2, 'default', '{}', $3, ${runAt})`, [id, name, status]);
  await row(ids[0]!, "send-report", "pending", "now()");
  await row(ids[2]!, "send-report", "succeeded", "now()");
  await row(ids[3]!, "send-report", "pending", "now() + interval '1 hour'");
  await row(ids[4]!, "other-task", "pending", "now()");
  await row(ids[5]!, "send-report", "pending", "now()");
  return ids;
}

/** Runs `fn` while another transaction holds the row of `id`. */
async function whileHeld<T>(id: string, fn: () => Promise<T>): Promise<T> {
  const holder = await sql.connect();
  try {
    await holder.query("BEGIN");
    await holder.query("SELECT id FROM tasks WHERE id = $1 FOR UPDATE", [id]);
    return await fn();
  } finally {
    await holder.query("ROLLBACK");
    holder.release();
  }
}

const outcome = (result: Awaited<ReturnType<Store["claimByIds"]>>[number]) => (result.claimed ? "claimed" : result.reason);

describe("claimByIds on PostgreSQL", () => {
  it("with one id at a time says for each kind what a batch says", async () => {
    const ids = await rowsOfEveryKind();
    const one = await whileHeld(ids[5]!, async () => {
      const results = [];
      for (const id of ids) results.push(...(await store.claimByIds([id], filter)));
      return results;
    });
    expect(one.map(outcome)).toEqual([...KINDS]);
    expect(one[0]!.claimed).toMatchObject({ id: ids[0], status: "running", attempts: 1, leaseOwner: "claimer" });
    expect(one[5]).toMatchObject({ name: "send-report", queue: "default" });

    const again = await rowsOfEveryKind();
    const batch = await whileHeld(again[5]!, () => store.claimByIds(again, filter));
    expect(batch.map(outcome)).toEqual([...KINDS]);
    const { rows } = await sql.query<{ id: string; status: string; attempts: number }>(
      "SELECT id::text, status, attempts FROM tasks WHERE id = ANY($1::uuid[]) OR id = ANY($2::uuid[])",
      [ids, again],
    );
    const state = new Map(rows.map((row) => [row.id, `${row.status}/${row.attempts}`]));
    expect(ids.map((id) => state.get(id))).toEqual(again.map((id) => state.get(id)));
    expect(state.get(ids[5]!)).toBe("pending/0"); // the held row was skipped, not waited for
  });

  it("claims the same id twice in one call once", async () => {
    const [id] = await rowsOfEveryKind();
    const results = await store.claimByIds([id!, id!], filter);
    expect(results.map(outcome)).toEqual(["claimed"]);
  });
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
