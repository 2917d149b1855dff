// The plans the MySQL dialect's own SQL units get on a table of 30,000 tasks (after ANALYZE TABLE): each unit runs
// against a CountingDb that EXPLAINs its first read instead of running it. The claim by ids reads the primary key only, a claim
// of due tasks walks the pending index in its order (no sort, so it stops after LIMIT rows), each cleaner scan has its
// index, and with the browse index the (queue, name) pairs come from a loose index scan. A change to the migration's
// indexes or to the statements that loses one of them fails here.

import type { Pool } from "mariadb";
import { afterAll, beforeAll, expect, it } from "vitest";
import { listTaskGroups } from "../../src/dialects/mysql/dashboard-sql/task-groups.js";
import type { CountingDb } from "../../src/store/db.js";
import { claimDueTasks } from "../../src/dialects/mysql/sql/claim-due-tasks.js";
import { claimTasksByIds } from "../../src/dialects/mysql/sql/claim-tasks.js";
import { findUnpublished } from "../../src/dialects/mysql/sql/find-unpublished.js";
import { pruneTasks } from "../../src/dialects/mysql/sql/prune-tasks.js";
import { findExpiredLeases } from "../../src/dialects/mysql/sql/recover-leases.js";
import { mysqlTable } from "../../src/dialects/mysql/table.js";
import { openStore, type Store } from "../../src/index.js";
import { taskTable } from "../../src/store/task-table.js";
import { createMysqlTestDatabase, mysqlTestPool, type MysqlTestDatabase } from "../support/mysql-database.js";

let database: MysqlTestDatabase;
let sql: Pool;
let store: Store;
const ids: string[] = [];

beforeAll(async () => {
  database = await createMysqlTestDatabase();
  sql = mysqlTestPool(database);
  store = openStore(database.url, { max: 1 });
  const statuses = ["pending", "pending", "running", "succeeded", "succeeded", "succeeded", "dead"];
  const rows: unknown[][] = [];
  for (let i = 0; i < 30_000; i++) {
    const hex = (1_700_000_000_000 + i).toString(16).padStart(12, "0") + "7" + i.toString(16).padStart(19, "0");
    const id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
    ids.push(id);
    const status = statuses[i % 7]!;
    const finished = status === "succeeded" || status === "dead";
    rows.push([
      id,
      `name-${i % 4}`,
      `q-${i % 3}`,
      status,
      i % 5,
      (i % 100) - 50,
      status === "running" ? "w" : null,
      status === "running" ? (i % 2 ? -10 : 10) : null,
      finished ? i % 1000 : null,
      i % 3 ? 1 : null,
    ]);
  }
  for (let start = 0; start < rows.length; start += 5000) {
    await sql.batch(
      `INSERT INTO tasks (id, name, queue, payload, status, priority, run_at, lease_owner, lease_expires_at, finished_at, published_at)
       VALUES (?, ?, ?, '{}', ?, ?, UTC_TIMESTAMP(6) + INTERVAL ? SECOND, ?, UTC_TIMESTAMP(6) + INTERVAL ? SECOND,
               UTC_TIMESTAMP(6) - INTERVAL ? SECOND, IF(? IS NULL, NULL, UTC_TIMESTAMP(6)))`,
      rows.slice(start, start + 5000),
    );
  }
  await sql.query("ANALYZE TABLE tasks");
});

afterAll(async () => {
  await store?.close();
  await sql?.end();
  await database?.drop();
});

const table = mysqlTable(taskTable());
const filter = { owner: "plans", leaseMs: 1000, names: ["name-1", "name-2"], queues: ["q-1"] };

/** The plan of the first statement `unit` sends (a read), which the CountingDb EXPLAINs instead of running; it then sees no rows. */
async function planOf(unit: (db: CountingDb) => Promise<unknown>): Promise<{ key: string | null; extra: string }> {
  const plans: Array<{ key: string | null; extra: string }> = [];
  const explaining: CountingDb = {
    async query<Row>(text: string, values: readonly unknown[]) {
      const rows = await sql.query<Array<{ table: string; key: string | null; Extra: string | null }>>(`EXPLAIN ${text}`, values);
      // One read of the task table; the pause check beside a claim reads the queue table (alias q), left aside here, and
      // the prune's look at a child's parent (alias p) must be one row by its primary key.
      for (const parent of rows.filter((row) => row.table === "p")) expect(parent.key, text).toBe("PRIMARY");
      const tasks = rows.filter((row) => row.table !== "q" && row.table !== "p");
      expect(tasks, text).toHaveLength(1);
      plans.push({ key: tasks[0]!.key, extra: tasks[0]!.Extra ?? "" });
      return [] as Row[];
    },
    // The prune also trims the tally rows past their span, whatever it finds: that write alone is let through.
    write: (text: string) => (text.startsWith(`DELETE FROM ${table.tallies} `) ? Promise.resolve(0) : Promise.reject(new Error("a unit that read no rows wrote"))),
    request: () => Promise.reject(new Error("no request expected")),
  };
  await unit(explaining);
  expect(plans.length).toBeGreaterThan(0);
  return plans[0]!;
}

it("claim by ids: the primary key only", async () => {
  const claim = await planOf((db) => claimTasksByIds(db, table, ids.slice(100, 120), filter));
  expect(claim.key).toBe("PRIMARY");
  expect(claim.extra).not.toMatch(/filesort/);
});

it("claim due: the pending index, in its order", async () => {
  const due = await planOf((db) => claimDueTasks(db, table, 10, filter));
  expect(due.key).toBe("tasks_status_queue_priority_run_at_idx");
  expect(due.extra).not.toMatch(/filesort/);
});

it("the cleaner's scans: each on its index, in its order", async () => {
  for (const [unit, index] of [
    [(db: CountingDb) => findUnpublished(db, table, { graceMs: 5000, limit: 100 }), "tasks_status_published_at_run_at_idx"],
    [(db: CountingDb) => findExpiredLeases(db, table, 100), "tasks_status_lease_expires_at_idx"],
    [(db: CountingDb) => pruneTasks(db, table, { retentionMs: 60_000, limit: 100 }), "tasks_finished_at_idx"],
  ] as const) {
    const scan = await planOf(unit);
    expect(scan.key).toBe(index);
    expect(scan.extra, index).not.toMatch(/filesort/);
  }
});

it("task groups: a loose index scan once the browse index exists", async () => {
  expect(await store.hasBrowseIndex()).toBe(false);
  await sql.query(store.browseIndexAdvice());
  expect(await store.hasBrowseIndex()).toBe(true);
  const groups = await planOf((db) => listTaskGroups(db, table));
  expect(groups.key).toBe("tasks_queue_name_status_id_idx");
  expect(groups.extra).toMatch(/Using index for group-by/);
});
