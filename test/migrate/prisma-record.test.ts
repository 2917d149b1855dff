// The record `task-runner migrate` leaves is the one Prisma Migrate leaves, on each dialect: `_prisma_migrations` has
// Prisma's columns and types (read from the catalog), and each row the checksum of the file's bytes (computed here with
// node:crypto), one applied step, no logs and UTC start and finish times; a checksum taken over CRLF line endings
// still matches once the file has LF ones, as Prisma's rule says. Also: the columns `--baseline` expects from the
// shipped SQL are the columns the database has once it ran.

import { readFileSync, writeFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isTaskQueueMigration, scriptEffect, type TableShapes } from "../../src/migrate/table-shape.js";
import { mysqlUpgrade, postgresUpgrade, sqliteUpgrade, type UpgradeDatabase, type UpgradeDialect } from "../upgrade/upgrade-databases.js";
import { AppFolder, migrate, recordRows, shippedMigrations, tableColumns } from "./migrate-support.js";

/** `_prisma_migrations` as Prisma's DDL makes it, in each catalog's words: [name, type, nullable, default, primary key]. */
const PRISMA_TABLE: Record<string, Array<[string, string, boolean, string | null, boolean]>> = {
  postgresql: [
    ["id", "character varying(36)", false, null, true],
    ["checksum", "character varying(64)", false, null, false],
    ["finished_at", "timestamp with time zone", true, null, false],
    ["migration_name", "character varying(255)", false, null, false],
    ["logs", "text", true, null, false],
    ["rolled_back_at", "timestamp with time zone", true, null, false],
    ["started_at", "timestamp with time zone", false, "now()", false],
    ["applied_steps_count", "integer", false, "0", false],
  ],
  sqlite: [
    ["id", "TEXT", false, null, true],
    ["checksum", "TEXT", false, null, false],
    ["finished_at", "DATETIME", true, null, false],
    ["migration_name", "TEXT", false, null, false],
    ["logs", "TEXT", true, null, false],
    ["rolled_back_at", "DATETIME", true, null, false],
    ["started_at", "DATETIME", false, "current_timestamp", false],
    ["applied_steps_count", "INTEGER UNSIGNED", false, "0", false],
  ],
  mysql: [
    ["id", "varchar(36)", false, null, true],
    ["checksum", "varchar(64)", false, null, false],
    ["finished_at", "datetime(3)", true, null, false],
    ["migration_name", "varchar(255)", false, null, false],
    ["logs", "text", true, null, false],
    ["rolled_back_at", "datetime(3)", true, null, false],
    ["started_at", "datetime(3)", false, "current_timestamp(3)", false],
    ["applied_steps_count", "int unsigned", false, "0", false],
  ],
};

/** The catalog's description of `_prisma_migrations`, in the shape of PRISMA_TABLE. */
async function describeRecordTable(dialect: UpgradeDialect, database: UpgradeDatabase): Promise<Array<[string, string, boolean, string | null, boolean]>> {
  if (dialect.name === "postgresql") {
    const rows = await database.query<{ name: string; type: string; nullable: boolean; dflt: string | null; pk: boolean }>(
      `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, NOT a.attnotnull AS nullable,
              pg_get_expr(d.adbin, d.adrelid) AS dflt,
              EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = a.attrelid AND i.indisprimary AND a.attnum = ANY (i.indkey)) AS pk
       FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
       WHERE a.attrelid = '_prisma_migrations'::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
    );
    return rows.map((r) => [r.name, r.type, r.nullable, r.dflt, r.pk]);
  }
  if (dialect.name === "sqlite") {
    const rows = await database.query<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number }>(
      `SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info('_prisma_migrations')`,
    );
    return rows.map((r) => [r.name, r.type, r.notnull === 0, r.dflt_value, r.pk === 1]);
  }
  const rows = await database.query<{ name: string; type: string; nullable: string; dflt: string | null; k: string }>(
    `SELECT column_name AS name, column_type AS type, is_nullable AS nullable, column_default AS dflt, column_key AS k
     FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = '_prisma_migrations' ORDER BY ordinal_position`,
  );
  // MariaDB writes int(10) and a nullable column's missing default as the text NULL; MySQL 8 writes int and null.
  return rows.map((r) => [
    r.name,
    r.type.replace(/^int\(\d+\)/, "int"),
    r.nullable === "YES",
    r.dflt === null || r.dflt === "NULL" ? null : r.dflt.toLowerCase(),
    r.k === "PRI",
  ]);
}

/** started_at and finished_at of a row as epoch milliseconds, read the way each dialect stores them. */
async function times(dialect: UpgradeDialect, database: UpgradeDatabase, name: string): Promise<{ started: number; finished: number; stored: string }> {
  const param = dialect.name === "postgresql" ? "$1" : "?";
  const [row] = await database.query<{ started_at: unknown; finished_at: unknown }>(
    `SELECT started_at, finished_at FROM _prisma_migrations WHERE migration_name = ${param}`,
    [name],
  );
  const ms = (value: unknown) => (value instanceof Date ? value.getTime() : typeof value === "number" ? value : Date.parse(`${String(value).replace(" ", "T")}Z`));
  return { started: ms(row!.started_at), finished: ms(row!.finished_at), stored: typeof row!.started_at };
}

for (const dialect of [postgresUpgrade, sqliteUpgrade, mysqlUpgrade]) {
  describe(`the _prisma_migrations record on ${dialect.name}`, () => {
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

    it("is Prisma's table, and each row holds what Prisma Migrate writes for the same folder", async () => {
      const shipped = shippedMigrations(dialect);
      app.addShipped(dialect, shipped);
      const before = Date.now();
      expect((await migrate(database.url, app)).code).toBe(0);
      const after = Date.now();

      expect(await describeRecordTable(dialect, database)).toEqual(PRISMA_TABLE[dialect.name]);
      if (dialect.name === "mysql") {
        const [table] = await database.query<{ collation: string }>(
          `SELECT table_collation AS collation FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = '_prisma_migrations'`,
        );
        expect(table!.collation).toBe("utf8mb4_unicode_ci");
      }
      const rows = await recordRows(database);
      expect(rows.map((row) => [row.migration_name, row.checksum, row.logs, row.applied_steps_count])).toEqual(
        shipped.map((name) => [name, app.checksum(name), null, 1]),
      );
      for (const name of shipped) {
        const { started, finished, stored } = await times(dialect, database, name);
        // UTC, from this clock: MySQL's test sessions run at +05:30 and must not shift them.
        expect(started).toBeGreaterThanOrEqual(before - 5);
        expect(finished).toBeGreaterThanOrEqual(started);
        expect(finished).toBeLessThanOrEqual(after + 5);
        // Prisma's engine writes a DateTime into SQLite as integer milliseconds, and reads them back so.
        if (dialect.name === "sqlite") expect(stored).toBe("number");
      }
    });

    it("checksums a CRLF file as it is, and still matches it once git turns it to LF", async () => {
      const name = "20261230000000_line_endings";
      app.add(name, "-- written on Windows\r\nCREATE TABLE line_endings (id INTEGER NOT NULL PRIMARY KEY);\r\n");
      expect((await migrate(database.url, app)).out).toBe(`Applied ${name}\n`);
      const [row] = await recordRows(database);
      expect(row!.checksum).toBe(app.checksum(name));
      writeFileSync(app.file(name), readFileSync(app.file(name), "utf8").replaceAll("\r\n", "\n"));
      expect(app.checksum(name)).not.toBe(row!.checksum);
      expect(await migrate(database.url, app)).toEqual({ code: 0, out: "The database is up to date: the one migration in prisma/migrations is applied.\n", err: "" });
    });

    it("reads from the shipped SQL the columns each task-queue table has once it ran (what --baseline compares)", async () => {
      const shipped = shippedMigrations(dialect);
      app.addShipped(dialect, shipped);
      expect((await migrate(database.url, app)).code).toBe(0);
      let shapes: TableShapes = new Map();
      for (const name of shipped) {
        const script = readFileSync(app.file(name), "utf8");
        expect(isTaskQueueMigration(script)).toBe(true);
        shapes = scriptEffect(script, shapes).after;
      }
      const beside = ["tasks_queue_starts", "tasks_queues", "tasks_schedule_slots", "tasks_schedules", "tasks_steps", "tasks_tallies"];
      expect([...shapes.keys()].sort()).toEqual(dialect.name === "sqlite" ? ["tasks", "tasks_events", "tasks_leaders", ...beside] : ["tasks", "tasks_events", ...beside]);
      for (const [table, columns] of shapes) expect(await tableColumns(dialect, database, table)).toEqual(columns);
    });
  });
}
