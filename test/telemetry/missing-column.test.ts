// A task table without a column every claim reads (trace_context, parent_id: its migration not applied): the store's
// check names the migration, so a worker refuses to start with that fix instead of failing every claim; once it is
// applied, the check passes.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createWorker, openStore, silentLogger } from "../../src/index.js";
import { mysqlUpgrade, postgresUpgrade, sqliteUpgrade } from "../upgrade/upgrade-databases.js";
import { plainTasks } from "../conformance/tasks.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

const COLUMNS = [
  { column: "trace_context", migration: "20261217000000_trace_context" },
  { column: "parent_id", migration: "20270107000000_workflow_children" },
];

for (const dialect of [postgresUpgrade, sqliteUpgrade, mysqlUpgrade]) {
  describe.each(COLUMNS)(`a task table without $column on ${dialect.name}`, ({ column, migration }) => {
    it("fails the check and the worker's start naming the migration; passes once it is applied", { timeout: 30_000 }, async () => {
      const dir = join(root, dialect.migrations);
      const names = readdirSync(dir)
        .filter((name) => /^\d{14}_/.test(name))
        .sort();
      expect(names).toContain(migration);
      const database = await dialect.open();
      const store = openStore(database.url, { max: 2 });
      try {
        // Every migration but that one: the others do not need its column.
        for (const name of names.filter((name) => name !== migration)) await database.apply(readFileSync(join(dir, name, "migration.sql"), "utf8"));
        const problem = await store.check();
        expect(problem).toMatchObject({ kind: "incompatible", lasting: true });
        expect(problem?.message).toContain(column);
        expect(problem?.detail).toBe(
          `the task table "tasks" lacks the ${column} column that this version reads with every claim: apply the migration ` +
            `${migration} (copy it from the package into your migrations folder, then npx task-runner migrate)`,
        );
        const worker = createWorker({ tasks: plainTasks, store, logger: silentLogger });
        await expect(worker.start()).rejects.toThrow(new RegExp(`lacks the ${column} column .* apply the migration ${migration}`));
        await worker.stop();

        await database.apply(readFileSync(join(dir, migration, "migration.sql"), "utf8"));
        expect(await store.check()).toBeUndefined();
      } finally {
        await store.close();
        await database.close();
      }
    });
  });
}
