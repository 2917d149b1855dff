// Checks bench/postgresjs-db.ts against the pg pool on a scratch database: the same worker operations through a store
// over each driver (and each transaction mode) give rows of the same shape and types, and asyncCommit's claims and
// completions land. Usage: tsx bench/check-postgresjs.ts [--pgbouncer]: with the flag, the postgres.js stores go through a
// PgBouncer in transaction mode started for the check (test/support/pgbouncer.ts), statements unnamed.

import { deepStrictEqual, strictEqual } from "node:assert";
import { randomUUID } from "node:crypto";
import { openStore } from "../src/index.js";
import type { Store } from "../src/store/store.js";
import { WORKER_POOL } from "../src/worker/task-worker.js";
import { PgBouncer } from "../test/support/pgbouncer.js";
import { applySchema } from "../test/support/schema.js";
import { resolveServices } from "../test/support/services.js";
import { Databases, runSql } from "./databases.js";
import { postgresJsStore, type TransactionMode } from "./postgresjs-db.js";

const TASKS = 40;
/** Each store's own task name, so one never claims what another left pending. */
const filter = (owner: string) => ({ owner, leaseMs: 30_000, names: [owner], queues: ["default"] });

/** What a value is, for comparing shapes: "Date", "string", "number", "null", "array<…>", "object". */
const kind = (value: unknown): string =>
  value === null ? "null" : value instanceof Date ? "Date" : Array.isArray(value) ? `array<${value.map(kind).join(",")}>` : typeof value;
const shape = (row: object) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, kind(value)]));

async function exercise(store: Store, label: string, url: string): Promise<Record<string, unknown>> {
  const ids = Array.from({ length: TASKS }, () => randomUUID());
  const owner = `owner-${label.replace(/\W/g, "-")}`;
  await runSql(url, `INSERT INTO tasks (id, name, payload) SELECT unnest('{${ids.join(",")}}'::uuid[]), '${owner}', '{"n": 1}'::jsonb`);
  const byIds = await store.claimByIds(ids.slice(0, 10), filter(owner));
  strictEqual(byIds.length, 10, `${label}: claimByIds`);
  const due = await store.claimDue(TASKS, filter(owner));
  strictEqual(due.length, TASKS - 10, `${label}: claimDue`);
  const relaxed = store.withAsyncCommit()!;
  const done = await relaxed.complete(
    owner,
    ids.slice(0, 20).map((id) => ({ id, resultJson: JSON.stringify({ ok: id }), runMs: 3 })),
  );
  strictEqual(done.length, 20, `${label}: complete (async commit)`);
  const leases = await store.extendLeases(owner, ids.slice(20, 25), 60_000);
  const failed = await store.fail(owner, [{ id: ids[25]!, error: "boom", delayMs: 1000, finalReason: null }]);
  const released = await store.release(owner, ids.slice(26, 30));
  const detail = await store.findTask(ids[0]!);
  strictEqual((detail as { result?: unknown } | undefined)?.result !== undefined, true, `${label}: result stored`);
  const counts = await store.countTasks();
  const now = await store.now();
  strictEqual(now instanceof Date, true, `${label}: now() is a Date`);
  // A statement that fails inside an async-commit transaction leaves the connection usable.
  await relaxed
    .transaction((tx) => tx.complete(owner, [{ id: "not-a-uuid", resultJson: "{}" }]))
    .then(
      () => {
        throw new Error(`${label}: a bad uuid passed`);
      },
      () => {},
    );
  strictEqual((await store.complete(owner, [{ id: ids[30]!, resultJson: "null" }])).length, 1, `${label}: complete after a failed transaction`);
  // Many statements and transactions at once, so the driver pipelines them on its connections (and, behind a pooler
  // with few server connections, their transactions interleave there).
  const burst = await Promise.all(
    Array.from({ length: 200 }, (_, n) =>
      n % 4 === 0 ? relaxed.extendLeases(owner, ids.slice(31, 35), 60_000).then((rows) => rows.length) : store.now().then((at) => (at instanceof Date ? 4 : -1)),
    ),
  );
  deepStrictEqual(new Set(burst), new Set([4]), `${label}: a burst of statements`);
  return {
    claimByIds: shape(byIds[0]!),
    claimDue: shape(due[0]!),
    leases: shape(leases[0]!),
    failed: shape(failed[0]!),
    released: released.length,
    detail: shape(detail!),
    counts: shape(counts[0]!),
  };
}

const services = await resolveServices();
const databases = new Databases(services.databaseUrl);
const bouncer = process.argv.includes("--pgbouncer") ? await PgBouncer.start(services.databaseUrl, 2) : undefined;
const via = bouncer ? " via pgbouncer" : "";
try {
  const database = await databases.template("pgjs_check", applySchema);
  const pg = openStore(database.url, WORKER_POOL);
  const reference = await exercise(pg, "pg", database.url);
  await pg.close();
  for (const mode of ["begin", "pipelined"] as TransactionMode[]) {
    const store = postgresJsStore(bouncer ? bouncer.url(database.url) : database.url, { ...WORKER_POOL, transactions: mode });
    const seen = await exercise(store, `postgres.js ${mode}${via}`, database.url);
    await store.close();
    deepStrictEqual(seen, reference, `postgres.js ${mode}: shapes differ from pg`);
    process.stdout.write(`postgres.js ${mode}${via}: same shapes as pg\n`);
  }
  process.stdout.write(`${JSON.stringify(reference)}\n`);
} finally {
  await databases.dropAll();
  await bouncer?.stop();
  await services.stop();
}
