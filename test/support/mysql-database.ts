// A fresh MySQL/MariaDB database per test, with the shipped migration and the tests' business table. The server is
// MYSQL_URL when set, else the local MariaDB on 127.0.0.1:3306 when it answers, else a mysql:8 container through
// testcontainers when Docker is there, else a failure that says what to start.
// Every connection of a test URL runs with a non-UTC session time zone and MySQL 8's default sql_mode
// (ONLY_FULL_GROUP_BY and strict), so every test also proves the dialect needs neither UTC sessions nor a lax mode.

import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as mariadb from "mariadb";
import { reachable } from "./services.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const LOCAL_URL = "mysql://root@127.0.0.1:3306/mysql";

/** MySQL 8.0's default sql_mode. */
export const MYSQL8_SQL_MODE = "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION";

/** The session settings test URLs carry (as the driver's sessionVariables option, which Prisma's adapter passes on). */
export const TEST_SESSION = { time_zone: "+05:30", sql_mode: MYSQL8_SQL_MODE };

let server: Promise<string> | undefined;

/** The server's URL (any database on it), found once per process. */
export function mysqlServerUrl(): Promise<string> {
  server ??= findServer();
  return server;
}

async function findServer(): Promise<string> {
  if (process.env.MYSQL_URL) return process.env.MYSQL_URL;
  if (await reachable(LOCAL_URL)) return LOCAL_URL;
  let testcontainers: typeof import("testcontainers");
  try {
    testcontainers = await import("testcontainers");
    await testcontainers.getContainerRuntimeClient();
  } catch (error) {
    throw new Error(
      "The MySQL tests need MySQL 8 or MariaDB 10.6+: set MYSQL_URL (mysql://user:password@host:3306/any), or start the local " +
        "MariaDB (start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd), or run Docker so testcontainers " +
        `can start mysql:8. (Docker: ${(error as Error).message.split("\n")[0]})`,
      { cause: error },
    );
  }
  const container = await new testcontainers.GenericContainer("mysql:8")
    .withEnvironment({ MYSQL_ALLOW_EMPTY_PASSWORD: "yes" })
    .withExposedPorts(3306)
    .withWaitStrategy(testcontainers.Wait.forLogMessage(/ready for connections.*port: 3306/))
    .withReuse()
    .start();
  return `mysql://root@${container.getHost()}:${container.getMappedPort(3306)}/mysql`;
}

/** `serverUrl` pointed at `database`, with the test session settings. */
export function mysqlDatabaseUrl(serverUrl: string, database: string, session: Record<string, string> = TEST_SESSION): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  if (Object.keys(session).length > 0) url.searchParams.set("sessionVariables", JSON.stringify(session));
  return url.toString();
}

/** A plain connection of the mariadb driver to `database` on the server of `serverUrl` (scripts of several statements allowed). */
export function mysqlConnection(serverUrl: string, database: string | undefined): Promise<mariadb.Connection> {
  const url = new URL(serverUrl);
  return mariadb.createConnection({
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username) || "root",
    password: decodeURIComponent(url.password) || undefined,
    database,
    multipleStatements: true,
  });
}

/** Runs SQL scripts (several statements each) on `database` of the server. */
export async function runMysqlScripts(serverUrl: string, database: string | undefined, scripts: readonly string[]): Promise<void> {
  const connection = await mysqlConnection(serverUrl, database);
  try {
    for (const script of scripts) await connection.query(script);
  } finally {
    await connection.end();
  }
}

/** The shipped MySQL migrations, oldest first. */
export function mysqlMigrationSql(): string[] {
  const dir = `${root}prisma/mysql/migrations`;
  return readdirSync(dir)
    .filter((name) => /^\d{14}_/.test(name))
    .sort()
    .map((name) => readFileSync(`${dir}/${name}/migration.sql`, "utf8"));
}

export function mysqlBusinessSql(): string {
  return readFileSync(`${root}test/sql/business-mysql.sql`, "utf8");
}

export interface MysqlTestDatabase {
  name: string;
  /** The database's URL, with the test session settings. */
  url: string;
  /** The server's URL (another database on it). */
  serverUrl: string;
  drop(): Promise<void>;
}

/** A fresh database with the task table (unless `migrate` is false) and the business table, dropped by drop(). */
export async function createMysqlTestDatabase(options: { migrate?: boolean } = {}): Promise<MysqlTestDatabase> {
  const serverUrl = await mysqlServerUrl();
  const name = `ptq_${randomBytes(5).toString("hex")}`;
  await runMysqlScripts(serverUrl, undefined, [`CREATE DATABASE \`${name}\``]);
  const scripts = options.migrate === false ? [mysqlBusinessSql()] : [...mysqlMigrationSql(), mysqlBusinessSql()];
  await runMysqlScripts(serverUrl, name, scripts);
  return {
    name,
    url: mysqlDatabaseUrl(serverUrl, name),
    serverUrl,
    drop: () => runMysqlScripts(serverUrl, undefined, [`DROP DATABASE IF EXISTS \`${name}\``]),
  };
}

/** A small pool of the mariadb driver on a test database, for tests that write or read rows with plain SQL. */
export function mysqlTestPool(database: Pick<MysqlTestDatabase, "serverUrl" | "name">, connectionLimit = 2): mariadb.Pool {
  const url = new URL(database.serverUrl);
  return mariadb.createPool({
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username) || "root",
    password: decodeURIComponent(url.password) || undefined,
    database: database.name,
    connectionLimit,
    minimumIdle: 1,
    dateStrings: true,
    bigIntAsNumber: true,
  });
}
