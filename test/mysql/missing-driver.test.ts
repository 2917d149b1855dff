// The mariadb driver is an optional peer dependency that only the MySQL dialect loads: with the package hidden, a
// mysql:// URL fails where its store opens, with an error naming the package to install (worker start, openStore and
// the CLI alike), and a PostgreSQL app runs as before: nothing on its path loads mariadb.

import { execFile } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { fixtureDir, root, runCli } from "../cli/cli-process.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { createMysqlTestDatabase, type MysqlTestDatabase } from "../support/mysql-database.js";

const hide = pathToFileURL(fileURLToPath(new URL("../support/hide-packages.mjs", import.meta.url))).href;
const hidden = { NODE_OPTIONS: `--import ${hide}`, HIDE_PACKAGES: "mariadb" };
let mysql: MysqlTestDatabase;
let postgres: TestDatabase;

beforeAll(async () => {
  [mysql, postgres] = await Promise.all([createMysqlTestDatabase(), createTestDatabase()]);
});

afterAll(async () => {
  await mysql?.drop();
  await postgres?.drop();
});

const MISSING = "MySQL and MariaDB URLs need the mariadb package, an optional peer dependency of prisma-task-queue that is not installed: npm install mariadb";

it("a worker on a mysql:// URL refuses to start, and openStore() throws, naming the package to install", async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", hide, "--import", "tsx", "test/mysql/missing-driver-worker.ts"], {
    cwd: root,
    env: { ...process.env, MYSQL_TEST_URL: mysql.url, HIDE_PACKAGES: "mariadb" },
  });
  const { worker, store } = JSON.parse(stdout.trim().split("\n").pop()!) as { worker: unknown; store: unknown };
  const missing = { name: "MissingPackageError", code: "TASK_PACKAGE_MISSING", message: MISSING };
  expect(worker).toEqual(missing);
  expect(store).toEqual(missing);
});

it("the CLI on a mysql:// URL exits 1 naming the package; on a postgresql:// URL it works without it", async () => {
  const mysqlRun = await runCli(["status"], { cwd: fixtureDir("cli-mysql-no-prisma"), env: { ...hidden, DATABASE_URL: mysql.url } });
  expect(mysqlRun.code).toBe(1);
  expect(mysqlRun.stderr).toBe(`task-runner status: ${MISSING}\n`);
  const postgresRun = await runCli(["status"], { cwd: fixtureDir("cli-app"), env: { ...hidden, DATABASE_URL: postgres.url } });
  expect(postgresRun).toMatchObject({ code: 0, stderr: "" });
  expect(postgresRun.stdout).toContain("Cleaner: none leads.");
});
