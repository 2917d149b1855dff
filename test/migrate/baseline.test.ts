// A task table created outside Prisma Migrate (the migration's SQL run with the database's client, as `task-runner
// init` used to suggest), on each dialect: `task-runner migrate` refuses and names --baseline; --baseline records the
// migrations the table already matches without running them and applies the newer ones; a table whose columns match
// no migration is refused with what differs, and nothing is recorded.

import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mysqlUpgrade, postgresUpgrade, sqliteUpgrade, type UpgradeDatabase } from "../upgrade/upgrade-databases.js";
import { AppFolder, migrate, recordRows, shippedMigrations, tableColumns, tableExists } from "./migrate-support.js";

for (const dialect of [postgresUpgrade, sqliteUpgrade, mysqlUpgrade]) {
  describe(`a task table created by hand on ${dialect.name}`, () => {
    let database: UpgradeDatabase;
    let app: AppFolder;
    let first: string;
    let newer: string;
    const created = dialect.name === "sqlite" ? 'table "tasks" and table "tasks_leaders" already exist' : 'table "tasks" already exists';
    const them = dialect.name === "sqlite" ? "them" : "it";

    beforeEach(async () => {
      database = await dialect.open();
      app = new AppFolder();
      [first, newer] = shippedMigrations(dialect) as [string, string];
      app.addShipped(dialect, [first, newer]);
      await database.apply(readFileSync(app.file(first), "utf8"));
    });

    afterEach(async () => {
      await database?.close();
      app?.remove();
    });

    it("is refused with the way out; --baseline records the migration it matches and applies the newer one", async () => {
      expect(await migrate(database.url, app)).toEqual({
        code: 3,
        out: "",
        err:
          `task-runner migrate: ${created}, but _prisma_migrations records none of the migrations that create ${them} (${first}): ` +
          "it was created outside Prisma Migrate (its SQL run with the database's client, or an older setup). Run `task-runner migrate " +
          "--baseline` to record the migrations the table already matches without running them (its columns are checked first); the ones " +
          "after are then applied.\n",
      });
      expect(await tableExists(dialect, database, "_prisma_migrations")).toBe(false);

      const recordLine = (name: string) => `${name} as applied without running it: its tables already exist with its columns\n`;
      expect(await migrate(database.url, app, "--baseline", "--dry-run")).toEqual({
        code: 0,
        out: `Would record ${recordLine(first)}Would apply ${newer}\n`,
        err: "",
      });
      expect(await tableExists(dialect, database, "_prisma_migrations")).toBe(false);

      expect(await migrate(database.url, app, "--baseline")).toEqual({ code: 0, out: `Recorded ${recordLine(first)}Applied ${newer}\n`, err: "" });
      const rows = await recordRows(database);
      // As `prisma migrate resolve --applied` records a migration: logs '', no step counted, finished.
      expect(rows.map((row) => [row.migration_name, row.checksum, row.logs, row.applied_steps_count, row.finished])).toEqual([
        [first, app.checksum(first), "", 0, true],
        [newer, app.checksum(newer), null, 1, true],
      ]);
      expect(await tableColumns(dialect, database, "tasks")).toEqual(expect.arrayContaining(["errors", "finished_by"]));
      expect(await migrate(database.url, app)).toEqual({ code: 0, out: "The database is up to date: all 2 migrations in prisma/migrations are applied.\n", err: "" });
    });

    it("--baseline records every migration the table already has the columns of", async () => {
      await database.apply(readFileSync(app.file(newer), "utf8"));
      const recorded = (name: string) => `Recorded ${name} as applied without running it: its tables already exist with its columns\n`;
      expect(await migrate(database.url, app, "--baseline")).toEqual({ code: 0, out: recorded(first) + recorded(newer), err: "" });
      expect((await recordRows(database)).map((row) => [row.migration_name, row.applied_steps_count])).toEqual([
        [first, 0],
        [newer, 0],
      ]);
    });

    it("with every shipped migration: --baseline records the ones the tables match and applies the schedule and queue tables, the trace context, the tallies, the workflow tables and the children's column", async () => {
      const all = shippedMigrations(dialect);
      const schedules = all.find((name) => name.endsWith("_task_schedules"))!;
      const controls = all.find((name) => name.endsWith("_queue_controls"))!;
      const traces = all.find((name) => name.endsWith("_trace_context"))!;
      const tallies = all.find((name) => name.endsWith("_queue_tallies"))!;
      const workflows = all.find((name) => name.endsWith("_workflow_steps"))!;
      const children = all.find((name) => name.endsWith("_workflow_children"))!;
      expect(all.slice(2)).toEqual([schedules, controls, traces, tallies, workflows, children]);
      app.addShipped(dialect, [schedules, controls, traces, tallies, workflows, children]);
      await database.apply(readFileSync(app.file(newer), "utf8"));
      const recorded = (name: string) => `Recorded ${name} as applied without running it: its tables already exist with its columns\n`;
      expect(await migrate(database.url, app, "--baseline")).toEqual({
        code: 0,
        out:
          recorded(first) +
          recorded(newer) +
          `Applied ${schedules}\nApplied ${controls}\nApplied ${traces}\nApplied ${tallies}\nApplied ${workflows}\nApplied ${children}\n`,
        err: "",
      });
      expect(await tableColumns(dialect, database, "tasks_queues")).toEqual(["queue", "paused_at", "concurrency", "rate_starts", "rate_per_ms", "updated_at"]);
      expect(await tableColumns(dialect, database, "tasks")).toEqual(expect.arrayContaining(["concurrency_key", "trace_context", "waiting_for", "parent_id"]));
      expect(await tableColumns(dialect, database, "tasks_schedules")).toEqual(["schedule", "task_name", "cron", "time_zone", "last_slot", "updated_at"]);
      expect(await tableColumns(dialect, database, "tasks_schedule_slots")).toEqual(["schedule", "slot", "task_id", "fired_at"]);
      expect(await tableColumns(dialect, database, "tasks_tallies")).toEqual(["queue", "writer", "slot", "succeeded", "timed", "run_ms", "deleted"]);
      expect(await tableColumns(dialect, database, "tasks_steps")).toEqual([
        "task_id",
        "seq",
        "name",
        "kind",
        "attempt",
        "state",
        "result",
        "until",
        "created_at",
        "finished_at",
      ]);
      expect(await tableColumns(dialect, database, "tasks_events")).toEqual(["id", "task_id", "name", "payload", "sent_at", "consumed_seq"]);
    });

    it("with the schedule tables made by hand too, --baseline records all three migrations", async () => {
      const schedules = shippedMigrations(dialect).find((name) => name.endsWith("_task_schedules"))!;
      app.addShipped(dialect, [schedules]);
      for (const name of [newer, schedules]) await database.apply(readFileSync(app.file(name), "utf8"));
      const recorded = (name: string) => `Recorded ${name} as applied without running it: its tables already exist with its columns\n`;
      expect(await migrate(database.url, app, "--baseline")).toEqual({ code: 0, out: recorded(first) + recorded(newer) + recorded(schedules), err: "" });
      expect((await recordRows(database)).map((row) => [row.migration_name, row.applied_steps_count])).toEqual([
        [first, 0],
        [newer, 0],
        [schedules, 0],
      ]);
    });

    it("--baseline refuses a table whose columns match no migration, says what differs, and records nothing", async () => {
      await database.query("ALTER TABLE tasks DROP COLUMN result");
      await database.query("ALTER TABLE tasks ADD COLUMN note TEXT");
      expect(await migrate(database.url, app, "--baseline")).toEqual({
        code: 3,
        out: "",
        err:
          `task-runner migrate: Cannot baseline: table "tasks" does not match ${first}: it lacks "result" and it has "note", which the ` +
          "migrations do not create. Nothing was recorded. Bring the table to the columns of one of its migrations by hand (for a missing " +
          "newer column, run that part of the newer migration's SQL), then run `task-runner migrate --baseline` again.\n",
      });
      expect(await tableExists(dialect, database, "_prisma_migrations")).toBe(false);
    });
  });
}
