// Claiming by id on PostgreSQL, with one id (a statement of its own, `id = $1`) and with several (`id = ANY($1)`):
// both say the same thing for every kind of id — claimed, missing, not pending, not due, not ours, and locked by
// another transaction (skipped, never waited for) — and leave the rows alike.

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
