// `task-runner migrate` on an empty database of each dialect: a dry run lists every migration folder and changes
// nothing; a run applies them all (the package's and the app's own) in name order and records each; a second run says
// the database is up to date and changes nothing.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mysqlUpgrade, postgresUpgrade, sqliteUpgrade, type UpgradeDatabase } from "../upgrade/upgrade-databases.js";
import { AppFolder, migrate, recordRows, shippedMigrations, tableExists } from "./migrate-support.js";

/** An app migration of the app's own, valid on every dialect, named to sort between the shipped ones. */
const OWN = "20261125000000_report_archive";
const OWN_SQL = "CREATE TABLE report_archive (id INTEGER NOT NULL PRIMARY KEY, note TEXT);\n";
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

for (const dialect of [postgresUpgrade, sqliteUpgrade, mysqlUpgrade]) {
  describe(`migrate on an empty ${dialect.name} database`, () => {
    let database: UpgradeDatabase;
    let app: AppFolder;

    beforeEach(async () => {
      database = await dialect.open();
      app = new AppFolder();
    });

    afterEach(async () => {
      await database?.close();
      app?.remove();
    });

    it("applies every migration folder in name order, records each, and a second run changes nothing", async () => {
      const shipped = shippedMigrations(dialect);
      app.addShipped(dialect, shipped);
      app.add(OWN, OWN_SQL);
      const names = [...shipped, OWN].sort();

      const dry = await migrate(database.url, app, "--dry-run");
      expect(dry).toEqual({ code: 0, out: names.map((name) => `Would apply ${name}\n`).join(""), err: "" });
      expect(await tableExists(dialect, database, "_prisma_migrations")).toBe(false);
      expect(await tableExists(dialect, database, "tasks")).toBe(false);

      const first = await migrate(database.url, app);
      expect(first).toEqual({ code: 0, out: names.map((name) => `Applied ${name}\n`).join(""), err: "" });
      expect(await tableExists(dialect, database, "tasks")).toBe(true);
      expect(await tableExists(dialect, database, "report_archive")).toBe(true);
      const rows = await recordRows(database);
      expect(rows).toEqual(
        names.map((name) => ({
          id: expect.stringMatching(UUID_V4),
          checksum: app.checksum(name),
          migration_name: name,
          logs: null,
          applied_steps_count: 1,
          started: true,
          finished: true,
          rolled_back: false,
        })),
      );

      const second = await migrate(database.url, app);
      expect(second).toEqual({ code: 0, out: `The database is up to date: all ${names.length} migrations in prisma/migrations are applied.\n`, err: "" });
      expect(await recordRows(database)).toEqual(rows);
      expect(await migrate(database.url, app, "--dry-run")).toEqual(second);
    });
  });
}
