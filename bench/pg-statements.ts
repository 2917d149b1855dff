// Statement-level measurements behind the worker's PostgreSQL statements, each against a fresh database:
//   1. claiming one id: the store's claim (a statement of its own for one id) against the batch statement (`= ANY`)
//      asked for one id, whose cached generic plan reads the row through a bitmap scan;
//   2. completing a batch and claiming the next: two statements (two commits, as the worker does) against one
//      statement that does both (one round trip, one commit);
//   3. completion as UPDATE to succeeded (history kept) against DELETE (no history);
//   4. how many of the updates PostgreSQL could make HOT (heap-only, no index writes).
// Usage: npx tsx bench/pg-statements.ts [--rounds=3] [--batch=300]

import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { openStore } from "../src/index.js";
import { applySchema } from "../test/support/schema.js";
import { resolveServices } from "../test/support/services.js";
import { Databases } from "./databases.js";
import { percentile } from "./stats.js";

const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const rounds = Number(arg("rounds", "3"));
const batch = Number(arg("batch", "300"));
const services = await resolveServices();
const databases = new Databases(services.databaseUrl);
const template = await databases.template("statements", (url) => applySchema(url));
const filter = { owner: "w1", leaseMs: 30_000, names: ["t"], queues: ["default"] };
const SET_RUNNING = `status = 'running', attempts = t.attempts + 1, lease_owner = $4, lease_expires_at = now() + $5::int * interval '1 millisecond', updated_at = now()`;
const CLAIM_ANY = `WITH locked AS (SELECT id, status, run_at, name, queue FROM tasks WHERE id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE SKIP LOCKED)
  UPDATE tasks t SET ${SET_RUNNING} FROM locked
  WHERE t.id = locked.id AND locked.status = 'pending' AND locked.run_at <= now() AND locked.name = ANY($2::text[]) AND locked.queue = ANY($3::text[])
  RETURNING t.*`;
const COMPLETE = `UPDATE tasks t SET status = 'succeeded', result = NULL, finished_at = clock_timestamp(), lease_owner = NULL, lease_expires_at = NULL,
    finished_by = $2, last_error = NULL, updated_at = clock_timestamp()
  WHERE t.id = ANY($1::uuid[]) AND t.lease_owner = $2 RETURNING t.id`;
const DELETE = `DELETE FROM tasks t WHERE t.id = ANY($1::uuid[]) AND t.lease_owner = $2 RETURNING t.id`;
const BOTH = `WITH done AS (
    UPDATE tasks t SET status = 'succeeded', result = NULL, finished_at = clock_timestamp(), lease_owner = NULL, lease_expires_at = NULL,
      finished_by = $4, last_error = NULL, updated_at = clock_timestamp()
    WHERE t.id = ANY($6::uuid[]) AND t.lease_owner = $4 RETURNING t.id),
  locked AS (SELECT id, status, run_at, name, queue FROM tasks WHERE id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE SKIP LOCKED)
  UPDATE tasks t SET ${SET_RUNNING} FROM locked
  WHERE t.id = locked.id AND locked.status = 'pending' AND locked.run_at <= now() AND locked.name = ANY($2::text[]) AND locked.queue = ANY($3::text[])
  RETURNING t.*, (SELECT count(*) FROM done) AS completed`;

const summary = (values: number[]) => `p50 ${percentile(values, 50).toFixed(3)} p90 ${percentile(values, 90).toFixed(3)} ms`;

for (let round = 1; round <= rounds; round++) {
  const database = await databases.clone(template);
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  const store = openStore(database.url, { max: 2 });
  const insert = async (count: number) => {
    const ids = Array.from({ length: count }, () => randomUUID());
    await pool.query(
      `INSERT INTO tasks (id, name, queue, payload, status, run_at, published_at) SELECT unnest($1::uuid[]), 't', 'default', '{"n":1}'::jsonb, 'pending', now(), now()`,
      [ids],
    );
    return ids;
  };
  const timed = async (ids: string[], claim: (id: string) => Promise<unknown>) => {
    const times: number[] = [];
    for (const id of ids) {
      const began = performance.now();
      await claim(id);
      times.push(performance.now() - began);
    }
    return times;
  };
  // 1. One id.
  const viaStore = await timed(await insert(1500), (id) => store.claimByIds([id], filter));
  const viaAny = await timed(await insert(1500), (id) => pool.query({ name: "claim_any", text: CLAIM_ANY, values: [[id], filter.names, filter.queues, "w1", 30_000] }));
  // 2. and 3. Batches: claim a batch, then per step complete it and claim the next, as two statements or as one.
  const steps = 20;
  const pairTimes = async (mode: "two" | "one" | "delete") => {
    const ids = await insert(batch * (steps + 1));
    let held = ids.slice(0, batch);
    await pool.query({ name: "claim_any", text: CLAIM_ANY, values: [held, filter.names, filter.queues, "w1", 30_000] });
    const times: number[] = [];
    for (let step = 1; step <= steps; step++) {
      const next = ids.slice(step * batch, (step + 1) * batch);
      const began = performance.now();
      if (mode === "one") {
        const { rows } = await pool.query<{ completed: string | number }>({ name: "both", text: BOTH, values: [next, filter.names, filter.queues, "w1", 30_000, held] });
        if (Number(rows[0]?.completed) !== held.length) throw new Error("combined statement completed too few");
      } else {
        const finished = await pool.query({ name: mode, text: mode === "two" ? COMPLETE : DELETE, values: [held, "w1"] });
        if (finished.rowCount !== held.length) throw new Error(`${mode}: completed too few`);
        await pool.query({ name: "claim_any", text: CLAIM_ANY, values: [next, filter.names, filter.queues, "w1", 30_000] });
      }
      times.push(performance.now() - began);
      held = next;
    }
    return times;
  };
  const two = await pairTimes("two");
  const one = await pairTimes("one");
  const deleting = await pairTimes("delete");
  // 4. HOT updates so far in this database.
  const { rows: stats } = await pool.query<{ n_tup_upd: string; n_tup_hot_upd: string }>(
    `SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'tasks'`,
  );
  console.log(`round ${round}:`);
  console.log(`  1. claim one id: store ${summary(viaStore)} | batch statement (= ANY) ${summary(viaAny)}`);
  console.log(`  2. complete ${batch} + claim ${batch}: two statements ${summary(two)} | one statement ${summary(one)}`);
  console.log(`  3. complete ${batch} by DELETE + claim ${batch}: ${summary(deleting)}`);
  console.log(`  4. updates ${stats[0]?.n_tup_upd}, of them HOT ${stats[0]?.n_tup_hot_upd} (the table's statistics, may lag by a moment)`);
  await store.close();
  await pool.end();
  await databases.drop(database);
}
await databases.dropAll();
