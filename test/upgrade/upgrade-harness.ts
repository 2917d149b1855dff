// The upgrade harness: builds the task table from older migrations, fills it with tasks in every state a live app
// leaves (pending, delayed, running with a live lease, running whose worker died, dead, succeeded), applies the newer
// migrations over it, then runs today's worker and cleaner until every task that can finish has finished.
// The next schema change uses it with the shipped migrations as "older" and its own new migration as "newer".

import { readFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { inject } from "vitest";
import { createCleaner, createWorker, openStore, silentLogger, type Store } from "../../src/index.js";
import { databaseUrlFor, dropDatabase, onServer } from "../support/database.js";
import { uniquePrefix } from "../support/broker.js";
import { businessSql } from "../support/schema.js";
import { plainTasks } from "../conformance/tasks.js";
import { readRuns } from "../conformance/run-log.js";

/** One migration: its folder name (timestamp_name) and the folder that holds it. */
export interface Migration {
  name: string;
  dir: string;
}

/** The tasks the harness seeds, by the state they were in when the newer migrations ran. */
export interface SeededTasks {
  pending: string;
  delayed: string;
  /** Running on a worker that is still alive during the upgrade: it finishes (here: lets go) after it. */
  running: string;
  /** Running on a worker that died before the upgrade: its lease expired; the cleaner recovers it. */
  orphaned: string;
  dead: string;
  succeeded: string;
}

export interface UpgradeResult {
  seeded: SeededTasks;
  /** The statuses at the end, by seeded state. */
  final: Record<keyof SeededTasks, string | undefined>;
  /** Handler starts per seeded state. */
  runs: Record<keyof SeededTasks, number>;
  /** The migrations applied, in order. */
  applied: string[];
}

/** Applies `older`, seeds, applies `newer` with the tasks in flight, runs the current worker and cleaner to the end. */
export async function upgradeWithTasksInFlight(older: readonly Migration[], newer: readonly Migration[], runLog: string): Promise<UpgradeResult> {
  const serverUrl = inject("databaseUrl");
  const name = `ptq_upgrade_${uniquePrefix().slice(-10)}`;
  await onServer(serverUrl, [`CREATE DATABASE "${name}"`]);
  const url = databaseUrlFor(serverUrl, name);
  const sql = new pg.Client({ connectionString: url });
  const applied: string[] = [];
  let store: Store | undefined;
  try {
    await sql.connect();
    for (const migration of older) applied.push(await apply(sql, migration));
    await sql.query(businessSql());
    const seeded = await seed(sql);
    for (const migration of newer) applied.push(await apply(sql, migration));

    process.env.CONFORMANCE_RUN_LOG = runLog;
    store = openStore(url, { max: 4 });
    const worker = createWorker({ tasks: plainTasks, store, logger: silentLogger, pollIntervalMs: 50, leaseMs: 2000 });
    const cleaner = createCleaner({ tasks: plainTasks, store, logger: silentLogger, intervalMs: 100, retentionMs: 3_600_000 });
    await cleaner.start();
    await worker.start();
    try {
      const finishing: Array<keyof SeededTasks> = ["pending", "delayed", "running", "orphaned"];
      const deadline = Date.now() + 30_000;
      for (;;) {
        const statuses = await Promise.all(finishing.map((state) => store!.findTask(seeded[state])));
        if (statuses.every((task) => task?.status === "succeeded")) break;
        if (Date.now() > deadline) throw new Error(`tasks did not finish after the upgrade: ${JSON.stringify(statuses.map((t) => [t?.id, t?.status]))}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await worker.stop();
      await cleaner.stop();
    }
    const states = Object.keys(seeded) as Array<keyof SeededTasks>;
    const final = Object.fromEntries(await Promise.all(states.map(async (state) => [state, (await store!.findTask(seeded[state]))?.status]))) as UpgradeResult["final"];
    const log = readRuns(runLog);
    const runs = Object.fromEntries(states.map((state) => [state, (log.get(seeded[state]) ?? []).filter((e) => e.e === "start").length])) as UpgradeResult["runs"];
    return { seeded, final, runs, applied };
  } finally {
    await store?.close();
    await sql.end().catch(() => {});
    await dropDatabase(serverUrl, name);
  }
}

async function apply(sql: pg.Client, migration: Migration): Promise<string> {
  await sql.query(readFileSync(join(migration.dir, migration.name, "migration.sql"), "utf8"));
  return migration.name;
}

/**
 * Rows as the older version of the app left them, written with the columns every schema since the first migration
 * has. `running` holds a lease of a worker that is still alive: it expires during the test (the old worker never
 * finishes: as after an upgrade that replaced it) and the cleaner recovers it like `orphaned`.
 */
async function seed(sql: pg.Client): Promise<SeededTasks> {
  const insert = async (status: string, extra: { runAtMs?: number; leaseOwner?: string; leaseMs?: number; attempts?: number; finished?: boolean }) => {
    const { rows } = await sql.query<{ id: string }>(
      `INSERT INTO tasks (id, name, queue, payload, status, run_at, attempts, lease_owner, lease_expires_at, finished_at, last_error)
       VALUES (gen_random_uuid(), 'run', 'default', '{"ms":0}', $1, now() + $2 * interval '1 millisecond', $3, $4,
               CASE WHEN $5::int IS NULL THEN NULL ELSE now() + $5 * interval '1 millisecond' END,
               CASE WHEN $6 THEN now() END, CASE WHEN $1 = 'dead' THEN 'Error: before the upgrade' END)
       RETURNING id::text AS id`,
      [status, extra.runAtMs ?? 0, extra.attempts ?? 0, extra.leaseOwner ?? null, extra.leaseMs ?? null, extra.finished ?? false],
    );
    return rows[0]!.id;
  };
  return {
    pending: await insert("pending", {}),
    delayed: await insert("pending", { runAtMs: 1500 }),
    running: await insert("running", { leaseOwner: "old-version-worker", leaseMs: 1500, attempts: 1 }),
    orphaned: await insert("running", { leaseOwner: "dead-worker", leaseMs: -60_000, attempts: 1 }),
    dead: await insert("dead", { attempts: 5, finished: true }),
    succeeded: await insert("succeeded", { attempts: 1, finished: true }),
  };
}
