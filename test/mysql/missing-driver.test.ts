// The mariadb driver is an optional peer dependency that only the MySQL dialect loads: with the package hidden, a
// mysql:// URL fails with an error naming the package to install (worker start and CLI alike), and a PostgreSQL app
// runs as before: nothing on its path imports mariadb.

import { execFile } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { fixtureDir, root, runCli } from "../cli/cli-process.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { createMysqlTestDatabase, type MysqlTestDatabase } from "../support/mysql-database.js";

const hide = pathToFileURL(fileURLToPath(new URL("./hide-mariadb.mjs", import.meta.url))).href;
const hidden = { NODE_OPTIONS: `--import ${hide}` };
let mysql: MysqlTestDatabase;
let postgres: TestDatabase;

beforeAll(async () => {
  [mysql, postgres] = await Promise.all([createMysqlTestDatabase(), createTestDatabase()]);
});

afterAll(async () => {
  await mysql?.drop();
  await postgres?.drop();
});

const ADVICE =
  'the "mariadb" driver package is not installed; install it beside prisma-task-queue: npm install mariadb (MySQL and MariaDB URLs need it; it is an optional peer dependency).';

it("a worker on a mysql:// URL refuses to start, and a store's first statement fails, naming the package to install", async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", hide, "--import", "tsx", "test/mysql/missing-driver-worker.ts"], {
    cwd: root,
    env: { ...process.env, MYSQL_TEST_URL: mysql.url },
  });
  const { worker, store } = JSON.parse(stdout.trim().split("\n").pop()!);
  expect(worker).toMatchObject({ name: "TaskQueueConfigError", code: "TASK_QUEUE_CONFIG_INVALID" });
  expect(worker.message).toMatch(/^Invalid option "databaseUrl": the worker cannot use the database at mysql:\/\//);
  expect(worker.message).toContain(`/${mysql.name}?`);
  expect(worker.message).toContain(`: ${ADVICE}`);
  expect(store).toEqual({
    name: "MysqlDriverMissingError",
    code: "TASK_QUEUE_CONFIG_INVALID",
    message:
      'Invalid option "databaseUrl": a MySQL or MariaDB URL needs the "mariadb" driver package, an optional peer dependency of ' +
      "prisma-task-queue, and it is not installed. Install it beside prisma-task-queue: npm install mariadb",
  });
});

it("the CLI on a mysql:// URL exits 1 naming the package; on a postgresql:// URL it works without it", async () => {
  const mysqlRun = await runCli(["status"], { cwd: fixtureDir("cli-mysql-no-prisma"), env: { ...hidden, DATABASE_URL: mysql.url } });
  expect(mysqlRun.code).toBe(1);
  expect(mysqlRun.stderr).toContain(ADVICE);
  const postgresRun = await runCli(["status"], { cwd: fixtureDir("cli-app"), env: { ...hidden, DATABASE_URL: postgres.url } });
  expect(postgresRun).toMatchObject({ code: 0, stderr: "" });
  expect(postgresRun.stdout).toContain("Cleaner: none leads.");
});
