// The upgrade harness: builds the task table from older migrations, fills it with tasks in every state a live app
// leaves (pending, delayed, running with a live lease, running whose worker died, dead, succeeded), applies the newer
// migrations over it, then runs today's worker and cleaner until every task that can finish has finished.
// Each schema change runs it with the shipped migrations before it as "older" and its own migration as "newer".

import { waitUntil } from "../support/wait.js";
import type { QueueActivity } from "../../src/store/tallies.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createCleaner, createWorker, openStore, silentLogger, type Store } from "../../src/index.js";
import type { TaskRecord } from "../../src/store/task-record.js";
import { plainTasks } from "../conformance/tasks.js";
import { readRuns } from "../conformance/run-log.js";
import type { SeededTasks, UpgradeDatabase, UpgradeDialect } from "./upgrade-databases.js";

/** One migration: its folder name (timestamp_name) and the folder that holds it. */
export interface Migration {
  name: string;
  dir: string;
}

export interface UpgradeResult {
  seeded: SeededTasks;
  /** Each seeded task's status right after the newer migrations, before today's worker ran (undefined: lost). */
  afterMigration: Record<keyof SeededTasks, string | undefined>;
  /** The rows at the end, by seeded state. */
  final: Record<keyof SeededTasks, TaskRecord | undefined>;
  /** Handler starts per seeded state. */
  runs: Record<keyof SeededTasks, number>;
  /** The migrations applied, in order. */
  applied: string[];
  /** The scaling signal's activity at the end, over the longest windows (every migration up to today's is applied). */
  activity: QueueActivity[];
}

/** How migrations reach the database: returns the names applied, in order. Default: each script run as is. */
export type ApplyMigrations = (database: UpgradeDatabase, migrations: readonly Migration[]) => Promise<string[]>;

/** What a schema change checks of its own once its migration ran, through today's store, before the worker starts. */
export type AfterUpgrade = (store: Store) => Promise<void>;

/** Applies `older`, seeds, applies `newer` with the tasks in flight, runs the current worker and cleaner to the end. */
export async function upgradeWithTasksInFlight(
  dialect: UpgradeDialect,
  older: readonly Migration[],
  newer: readonly Migration[],
  runLog: string,
  applyMigrations: ApplyMigrations = applyEach,
  afterUpgrade?: AfterUpgrade,
): Promise<UpgradeResult> {
  const database = await dialect.open();
  const applied: string[] = [];
  let store: Store | undefined;
  try {
    applied.push(...(await applyMigrations(database, older)));
    await database.business();
    const seeded = await seed(database);
    // The newer migrations begin on a later millisecond of the database's clock than every seeded row: a migration
    // that marks a moment (when the scaling tallies began) counts from its millisecond, and a row of that same
    // millisecond, written just before it on a fast machine, would count as written after it.
    const seededAt = await database.clockMs();
    await waitUntil(async () => (await database.clockMs()) > seededAt + 1, "the database's clock to pass the seeded rows");
    applied.push(...(await applyMigrations(database, newer)));

    process.env.CONFORMANCE_RUN_LOG = runLog;
    store = openStore(database.url, { max: 4 });
    const seededStates = Object.keys(seeded) as Array<keyof SeededTasks>;
    const afterMigration = Object.fromEntries(
      await Promise.all(seededStates.map(async (state) => [state, (await store!.findTask(seeded[state]))?.status])),
    ) as UpgradeResult["afterMigration"];
    await afterUpgrade?.(store);
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
    const final = Object.fromEntries(await Promise.all(states.map(async (state) => [state, await store!.findTask(seeded[state])]))) as UpgradeResult["final"];
    const log = readRuns(runLog);
    const runs = Object.fromEntries(states.map((state) => [state, (log.get(seeded[state]) ?? []).filter((e) => e.e === "start").length])) as UpgradeResult["runs"];
    const activity = await store.queueActivity({ rateSeconds: 900, processingSeconds: 900 });
    return { seeded, afterMigration, final, runs, applied, activity };
  } finally {
    await store?.close();
    await database.close();
  }
}

async function applyEach(database: UpgradeDatabase, migrations: readonly Migration[]): Promise<string[]> {
  for (const migration of migrations) await database.apply(readFileSync(join(migration.dir, migration.name, "migration.sql"), "utf8"));
  return migrations.map((migration) => migration.name);
}

/**
 * Rows as the older version of the app left them. `running` holds a lease of a worker that is still alive: it expires
 * during the test (the old worker never finishes: as after an upgrade that replaced it) and the cleaner recovers it
 * like `orphaned`.
 */
async function seed(database: UpgradeDatabase): Promise<SeededTasks> {
  return {
    pending: await database.insert({ status: "pending" }),
    delayed: await database.insert({ status: "pending", runAtMs: 1500 }),
    running: await database.insert({ status: "running", leaseOwner: "old-version-worker", leaseMs: 1500, attempts: 1 }),
    orphaned: await database.insert({ status: "running", leaseOwner: "dead-worker", leaseMs: -60_000, attempts: 1 }),
    dead: await database.insert({ status: "dead", attempts: 5, finished: true }),
    succeeded: await database.insert({ status: "succeeded", attempts: 1, finished: true }),
  };
}
