// What stops `task-runner migrate`, on each dialect, with the message it prints and its exit code: a migration a failed
// run left started but unfinished (until --rolled-back marks it), an applied migration edited afterwards, and a
// migration whose SQL fails: rolled back whole on PostgreSQL and SQLite, half-applied and recorded as started on MySQL.

import { appendFileSync, writeFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mysqlUpgrade, postgresUpgrade, sqliteUpgrade, type UpgradeDatabase } from "../upgrade/upgrade-databases.js";
import { AppFolder, insertFailedRecord, migrate, recordRows, shippedMigrations, tableExists } from "./migrate-support.js";

const OWN = "20261210000000_report_index";
const OWN_SQL = "CREATE TABLE report_index (id INTEGER NOT NULL PRIMARY KEY);\n";
const TABLE_SQL = "CREATE TABLE partial_a (id INTEGER NOT NULL PRIMARY KEY);\n";
const FAILING = "20261211000000_partial";

/** The driver's words for the second CREATE TABLE of FAILING. */
const ALREADY_EXISTS: Record<string, RegExp> = {
  postgresql: /relation "partial_a" already exists \(SQLSTATE 42P07\)/,
  sqlite: /table partial_a already exists \(SQLITE_ERROR\)/,
  mysql: /Table 'partial_a' already exists \(error 1050 ER_TABLE_EXISTS_ERROR\)/,
};

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

for (const dialect of [postgresUpgrade, sqliteUpgrade, mysqlUpgrade]) {
  describe(`migrate refuses on ${dialect.name}`, () => {
    let database: UpgradeDatabase;
    let app: AppFolder;
    let shipped: string[];

    beforeEach(async () => {
      database = await dialect.open();
      app = new AppFolder();
      shipped = shippedMigrations(dialect);
      app.addShipped(dialect, shipped);
      expect((await migrate(database.url, app)).code).toBe(0);
    });

    afterEach(async () => {
      await database?.close();
      app?.remove();
    });

    it("a migration recorded as started but not finished, until --rolled-back marks it; then it applies it", async () => {
      app.add(OWN, OWN_SQL);
      await insertFailedRecord(dialect, database, OWN, app.checksum(OWN));
      const refused = await migrate(database.url, app);
      expect(refused.code).toBe(3);
      expect(refused.out).toBe("");
      expect(refused.err).toMatch(
        new RegExp(
          `^task-runner migrate: _prisma_migrations records ${OWN} \\(started \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z; its error: Database error code: 40P01\\) ` +
            escape(
              "as started but not finished: a failed run may have applied part of it. Compare the database with its migration.sql and " +
                `undo what it applied, then mark it rolled back with \`task-runner migrate --rolled-back ${OWN}\` (or ` +
                `\`npx prisma migrate resolve --rolled-back ${OWN}\`) and run \`task-runner migrate\` again to apply it.\n`,
            ) +
            "$",
        ),
      );
      expect(await tableExists(dialect, database, "report_index")).toBe(false);

      expect(await migrate(database.url, app, "--rolled-back", shipped[0]!)).toEqual({
        code: 3,
        out: "",
        err:
          `task-runner migrate: --rolled-back ${shipped[0]}: _prisma_migrations records it as finished, not failed, so there is nothing to ` +
          "roll back. Pass the name of a migration that a failed run left started but not finished.\n",
      });
      expect(await migrate(database.url, app, "--rolled-back", OWN)).toEqual({
        code: 0,
        out: `Marked ${OWN} rolled back: the next \`task-runner migrate\` applies it again.\n`,
        err: "",
      });
      expect(await migrate(database.url, app)).toEqual({ code: 0, out: `Applied ${OWN}\n`, err: "" });
      const own = (await recordRows(database)).filter((row) => row.migration_name === OWN);
      expect(own.map((row) => [row.finished, row.rolled_back, row.applied_steps_count])).toEqual([
        [false, true, 0],
        [true, false, 1],
      ]);
    });

    it("an applied migration whose file changed, and applies nothing else", async () => {
      app.add(OWN, OWN_SQL);
      const recorded = app.checksum(shipped[0]!);
      appendFileSync(app.file(shipped[0]!), "-- tuned by hand\n");
      expect(await migrate(database.url, app)).toEqual({
        code: 3,
        out: "",
        err:
          `task-runner migrate: ${app.file(shipped[0]!)} (recorded checksum ${recorded.slice(0, 12)}…, file now ${app.checksum(shipped[0]!).slice(0, 12)}…) ` +
          "changed after it was applied: an applied migration must stay as it ran, or the next database built from the folder differs " +
          "from this one. Restore the file as it was applied (e.g. `git checkout -- <file>`) and put the change in a new migration folder.\n",
      });
      expect(await tableExists(dialect, database, "report_index")).toBe(false);
    });

    it("a migration whose SQL fails, and says what of it stays applied", async () => {
      app.add(FAILING, TABLE_SQL + TABLE_SQL);
      const failed = await migrate(database.url, app);
      expect(failed.code).toBe(1);
      expect(failed.out).toBe("");
      const [head, tail] = failed.err.split(ALREADY_EXISTS[dialect.name]!);
      expect(tail, failed.err).toBeDefined();
      if (dialect.name !== "mysql") {
        expect(head).toBe(`task-runner migrate: Migration ${FAILING} failed and was rolled back, so nothing of it is applied or recorded: `);
        expect(tail).toMatch(
          /^( at line 2 of migration\.sql)?\. Fix its migration\.sql \(it never ran, so changing it is safe\) and run `task-runner migrate` again\.\n$/,
        );
        expect(await tableExists(dialect, database, "partial_a")).toBe(false);
        expect((await recordRows(database)).map((row) => row.migration_name)).toEqual(shipped);
        writeFileSync(app.file(FAILING), TABLE_SQL);
        expect(await migrate(database.url, app)).toEqual({ code: 0, out: `Applied ${FAILING}\n`, err: "" });
        return;
      }
      expect(head).toBe(`task-runner migrate: Migration ${FAILING} failed: `);
      expect(tail).toBe(
        ". MySQL commits each DDL statement, so the statements before the failing one are applied, and _prisma_migrations records the " +
          `migration as started but not finished. Undo what it applied, fix its migration.sql, then run \`task-runner migrate --rolled-back ${FAILING}\` ` +
          "and `task-runner migrate` again.\n",
      );
      expect(await tableExists(dialect, database, "partial_a")).toBe(true);
      const [row] = (await recordRows(database)).filter((r) => r.migration_name === FAILING);
      expect(row).toMatchObject({ finished: false, rolled_back: false, applied_steps_count: 0, logs: expect.stringMatching(ALREADY_EXISTS.mysql!) });

      const refused = await migrate(database.url, app);
      expect(refused.code).toBe(3);
      expect(refused.err).toMatch(
        new RegExp(`^task-runner migrate: _prisma_migrations records ${FAILING} \\(started [^;]+; its error: Table 'partial_a' already exists`),
      );

      await database.query("DROP TABLE partial_a");
      writeFileSync(app.file(FAILING), TABLE_SQL);
      expect((await migrate(database.url, app, "--rolled-back", FAILING)).code).toBe(0);
      expect(await migrate(database.url, app)).toEqual({ code: 0, out: `Applied ${FAILING}\n`, err: "" });
    });
  });
}
