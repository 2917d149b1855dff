// An upgrade through `task-runner migrate`, on each dialect, with the upgrade harness (test/upgrade/): the app's
// migrations folder holds the first migration, which migrate applies; tasks are left in every state (pending, delayed,
// running, orphaned, dead, succeeded); the app copies the newer shipped migration in and migrate applies it over them;
// today's worker and cleaner then finish every task that can finish, once, and lose none.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { upgradeWithTasksInFlight, type ApplyMigrations } from "../upgrade/upgrade-harness.js";
import { mysqlUpgrade, postgresUpgrade, sqliteUpgrade, type UpgradeDialect } from "../upgrade/upgrade-databases.js";
import { AppFolder, migrate, recordRows, shippedFolder, shippedMigrations } from "./migrate-support.js";

const cleanup: Array<() => void> = [];

afterAll(() => {
  for (const remove of cleanup) remove();
});

/** Copies the migrations into the app's folder and runs `task-runner migrate`; returns the names it says it applied. */
function throughMigrate(dialect: UpgradeDialect, app: AppFolder): ApplyMigrations {
  return async (database, migrations) => {
    app.addShipped(
      dialect,
      migrations.map((migration) => migration.name),
    );
    const run = await migrate(database.url, app);
    expect(run.err).toBe("");
    expect(run.code).toBe(0);
    return [...run.out.matchAll(/^Applied (\S+)$/gm)].map((match) => match[1]!);
  };
}

for (const dialect of [postgresUpgrade, sqliteUpgrade, mysqlUpgrade]) {
  describe(`upgrade through task-runner migrate on ${dialect.name}`, () => {
    it("applies the newer migration over tasks in every state, records both, and today's worker finishes them once", { timeout: 60_000 }, async () => {
      const app = new AppFolder();
      const runLog = mkdtempSync(join(tmpdir(), "ptq-migrate-upgrade-"));
      cleanup.push(
        () => app.remove(),
        () => rmSync(runLog, { recursive: true, force: true }),
      );
      const shipped = shippedMigrations(dialect);
      const older = shipped.slice(0, -1).map((name) => ({ name, dir: shippedFolder(dialect) }));
      const newer = shipped.slice(-1).map((name) => ({ name, dir: shippedFolder(dialect) }));
      let records: Awaited<ReturnType<typeof recordRows>> = [];
      const apply = throughMigrate(dialect, app);
      const result = await upgradeWithTasksInFlight(dialect, older, newer, runLog, async (database, migrations) => {
        const applied = await apply(database, migrations);
        records = await recordRows(database);
        return applied;
      });

      expect(result.applied).toEqual(shipped);
      expect(records.map((row) => [row.migration_name, row.checksum, row.applied_steps_count, row.finished])).toEqual(
        shipped.map((name) => [name, app.checksum(name), 1, true]),
      );
      const statuses = Object.fromEntries(Object.entries(result.final).map(([state, task]) => [state, task?.status]));
      expect(statuses).toEqual({ pending: "succeeded", delayed: "succeeded", running: "succeeded", orphaned: "succeeded", dead: "dead", succeeded: "succeeded" });
      expect(result.runs).toEqual({ pending: 1, delayed: 1, running: 1, orphaned: 1, dead: 0, succeeded: 0 });
      expect(result.final.pending?.finishedBy).toMatch(/\S/);
      expect(result.final.dead).toMatchObject({ lastError: "Error: before the upgrade", errors: [], finishedBy: null });
    });
  });
}
