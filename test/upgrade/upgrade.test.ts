// Upgrading the schema with tasks in flight, on every dialect: the shipped migrations before the newest as "older",
// the newest (the latest schema change: finished_by and the error history) as "newer". Every task that was pending,
// delayed or running finishes exactly once under today's worker, which writes the new columns; dead and succeeded
// tasks stay as they were.

import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { upgradeWithTasksInFlight, type Migration } from "./upgrade-harness.js";
import { mysqlUpgrade, postgresUpgrade, sqliteUpgrade } from "./upgrade-databases.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const runLogs: string[] = [];

afterAll(() => {
  for (const dir of runLogs) rmSync(dir, { recursive: true, force: true });
});

function migrationsIn(dir: string): Migration[] {
  return readdirSync(dir)
    .filter((name) => /^\d{14}_/.test(name))
    .sort()
    .map((name) => ({ name, dir }));
}

for (const dialect of [postgresUpgrade, sqliteUpgrade, mysqlUpgrade]) {
  describe(`upgrade on ${dialect.name}`, () => {
    it("applies the newest migration over tasks in every state, and today's worker finishes them once", { timeout: 60_000 }, async () => {
      const shipped = migrationsIn(join(root, dialect.migrations));
      expect(shipped.length).toBeGreaterThan(1);
      const older = shipped.slice(0, -1);
      const newer = shipped.slice(-1);
      expect(newer[0]!.name).toMatch(/_task_finished_by_errors$/);
      const runLog = mkdtempSync(join(tmpdir(), "ptq-upgrade-"));
      runLogs.push(runLog);
      const result = await upgradeWithTasksInFlight(dialect, older, newer, runLog);
      expect(result.applied).toEqual(shipped.map((migration) => migration.name));
      const statuses = Object.fromEntries(Object.entries(result.final).map(([state, task]) => [state, task?.status]));
      expect(statuses).toEqual({
        pending: "succeeded",
        delayed: "succeeded",
        running: "succeeded",
        orphaned: "succeeded",
        dead: "dead",
        succeeded: "succeeded",
      });
      expect(result.runs).toEqual({ pending: 1, delayed: 1, running: 1, orphaned: 1, dead: 0, succeeded: 0 });
      // The new columns work on rows written before them: the finisher is recorded, the recovered lease joined the
      // error history, and old rows read back with an empty history.
      expect(result.final.pending?.finishedBy).toMatch(/\S/);
      expect(result.final.orphaned?.errors.map((entry) => entry.error)).toEqual([expect.stringMatching(/^lease expired: worker dead-worker /)]);
      expect(result.final.orphaned?.lastError).toBeNull();
      expect(result.final.dead).toMatchObject({ lastError: "Error: before the upgrade", errors: [], finishedBy: null });
    });
  });
}
