// A task table without the trace_context column (its migration not applied): the store's check names the migration,
// so a worker refuses to start with that fix instead of failing every claim; once it is applied, the check passes.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createWorker, openStore, silentLogger } from "../../src/index.js";
import { mysqlUpgrade, postgresUpgrade, sqliteUpgrade } from "../upgrade/upgrade-databases.js";
import { plainTasks } from "../conformance/tasks.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

for (const dialect of [postgresUpgrade, sqliteUpgrade, mysqlUpgrade]) {
  describe(`a task table without trace_context on ${dialect.name}`, () => {
    it("fails the check and the worker's start naming the migration; passes once it is applied", { timeout: 30_000 }, async () => {
      const dir = join(root, dialect.migrations);
      const names = readdirSync(dir)
        .filter((name) => /^\d{14}_/.test(name))
        .sort();
      const traceContext = names.find((name) => /_trace_context$/.test(name));
      expect(traceContext).toBe("20261217000000_trace_context");
      const database = await dialect.open();
      const store = openStore(database.url, { max: 2 });
      try {
        // Every migration but that one: the later ones (the tallies' table) do not need its column.
        for (const name of names.filter((name) => name !== traceContext)) await database.apply(readFileSync(join(dir, name, "migration.sql"), "utf8"));
        const problem = await store.check();
        expect(problem).toMatchObject({ kind: "incompatible", lasting: true });
        expect(problem?.message).toContain("trace_context");
        expect(problem?.detail).toBe(
          `the task table "tasks" lacks the trace_context column that this version reads with every claim: apply the migration ` +
            `20261217000000_trace_context (copy it from the package into your migrations folder, then npx task-runner migrate)`,
        );
        const worker = createWorker({ tasks: plainTasks, store, logger: silentLogger });
        await expect(worker.start()).rejects.toThrow(/lacks the trace_context column .* apply the migration 20261217000000_trace_context/);
        await worker.stop();

        await database.apply(readFileSync(join(dir, traceContext!, "migration.sql"), "utf8"));
        expect(await store.check()).toBeUndefined();
      } finally {
        await store.close();
        await database.close();
      }
    });
  });
}
