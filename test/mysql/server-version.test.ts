// The version check of the MySQL dialect: real VERSION() strings of both servers, the ones too old refused with the
// version found and the one needed, and the check itself (Store.check) against the server the tests run on.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../src/index.js";
import { parseServerVersion, serverVersionProblem, statementLimiter } from "../../src/dialects/mysql/server-version.js";
import { createMysqlTestDatabase, runMysqlScripts, type MysqlTestDatabase } from "../support/mysql-database.js";

describe("version strings", () => {
  it.each([
    ["8.0.0", "mysql", false],
    ["8.0.3", "mysql", false],
    ["8.0.4", "mysql", true],
    ["8.0.36", "mysql", true],
    ["8.0.36-0ubuntu0.22.04.1", "mysql", true],
    ["8.4.3", "mysql", true],
    ["9.1.0", "mysql", true],
    ["5.7.44-log", "mysql", false],
    ["5.6.51", "mysql", false],
    ["10.5.23-MariaDB", "mariadb", false],
    ["10.5.23-MariaDB-1:10.5.23+maria~ubu2004-log", "mariadb", false],
    ["10.6.16-MariaDB-1:10.6.16+maria~ubu2004", "mariadb", true],
    ["10.11.19-MariaDB-0+deb12u1", "mariadb", true],
    ["11.4.2-MariaDB", "mariadb", true],
  ] as const)("%s is %s, accepted: %s", (text, flavor, accepted) => {
    expect(parseServerVersion(text)?.flavor).toBe(flavor);
    const problem = serverVersionProblem(text);
    if (accepted) {
      expect(problem).toBeUndefined();
      return;
    }
    expect(problem).toMatchObject({ kind: "server-too-old", lasting: true });
    const found = parseServerVersion(text)!;
    const name = `${flavor === "mariadb" ? "MariaDB" : "MySQL"} ${found.major}.${found.minor}.${found.patch}`;
    expect(problem!.message).toBe(`${name} is too old (VERSION() says ${JSON.stringify(text)})`);
    expect(problem!.detail).toContain(`needs ${flavor === "mariadb" ? "MariaDB 10.6" : "MySQL 8.0.4"} or later (found ${name})`);
  });

  it("refuses a version string it cannot read, naming both minimums", () => {
    expect(serverVersionProblem("TiDB")).toEqual({
      kind: "server-too-old",
      lasting: true,
      message: `the server's version "TiDB" is not one prisma-task-queue can read`,
      detail: "prisma-task-queue needs MySQL 8.0.4 or later, or MariaDB 10.6 or later",
    });
  });

  it("limits statements in each flavor's own way", () => {
    const mysql = statementLimiter("8.0.36", 5000);
    expect(mysql("SELECT 1")).toBe("SELECT /*+ MAX_EXECUTION_TIME(5000) */ 1");
    expect(mysql("\n  select id FROM t")).toBe("\n  select /*+ MAX_EXECUTION_TIME(5000) */ id FROM t");
    expect(mysql("UPDATE t SET a = 1")).toBe("UPDATE t SET a = 1");
    const mariadb = statementLimiter("10.11.19-MariaDB-0+deb12u1", 1500);
    expect(mariadb("UPDATE t SET a = 1")).toBe("SET STATEMENT max_statement_time = 1.500 FOR UPDATE t SET a = 1");
  });
});

describe("Store.check against the server here", () => {
  let database: MysqlTestDatabase;
  const stores: Store[] = [];
  const open = (url: string, table?: string) => {
    const store = openStore(url, { max: 1, table });
    stores.push(store);
    return store;
  };

  beforeAll(async () => {
    database = await createMysqlTestDatabase();
  });

  afterAll(async () => {
    for (const store of stores) await store.close();
    await database?.drop();
  });

  it("accepts this server and a migrated table", async () => {
    expect(await open(database.url).check()).toBeUndefined();
  });

  it("reports a missing table, a missing database, refused credentials and a server that does not answer", async () => {
    expect(await open(database.url, "nope").check()).toMatchObject({ kind: "missing-table", lasting: true });
    const other = new URL(database.url);
    other.pathname = "/ptq_does_not_exist";
    expect(await open(other.toString()).check()).toMatchObject({ kind: "missing-database", lasting: true });
    const stranger = new URL(database.url);
    stranger.username = "ptq_no_such_user";
    stranger.password = "wrong";
    expect(await open(stranger.toString()).check()).toMatchObject({ kind: "credentials", lasting: true });
    const closed = new URL(database.url);
    closed.port = "1";
    const unreachable = openStore(closed.toString(), { max: 1 });
    stores.push(unreachable);
    expect(await unreachable.check()).toMatchObject({ kind: "unreachable", lasting: false });
  });

  it("reports a user that may not read the task table", async () => {
    const user = `${database.name}_ro`;
    await runMysqlScripts(database.serverUrl, undefined, [
      `CREATE USER '${user}'@'%' IDENTIFIED BY 'ptq-pw'`,
      `CREATE USER '${user}'@'localhost' IDENTIFIED BY 'ptq-pw'`,
      `GRANT SELECT ON \`${database.name}\`.\`reports\` TO '${user}'@'%'`,
      `GRANT SELECT ON \`${database.name}\`.\`reports\` TO '${user}'@'localhost'`,
    ]);
    try {
      const limited = new URL(database.url);
      limited.username = user;
      limited.password = "ptq-pw";
      expect(await open(limited.toString()).check()).toMatchObject({ kind: "privilege", lasting: true });
    } finally {
      await runMysqlScripts(database.serverUrl, undefined, [`DROP USER '${user}'@'%'`, `DROP USER '${user}'@'localhost'`]);
    }
  });
});
