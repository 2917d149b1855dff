// Which dialect serves what: mysql:// and mariadb:// URLs and a Prisma client of the "mysql" provider (MySQL and
// MariaDB datasources alike) pick the MySQL dialect, and the stores it makes work on the MariaDB here; a URL without a
// database is refused where the store is opened.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dialectForPrisma, dialectForProvider, dialectForUrl, prismaStore } from "../../src/dialects/index.js";
import { openStore, TaskQueueConfigError, type Store } from "../../src/index.js";
import { taskTable } from "../../src/store/task-table.js";
import { testPrisma } from "../support/prisma.js";
import { createMysqlTestDatabase, type MysqlTestDatabase } from "../support/mysql-database.js";
import { testMysqlPrisma } from "../support/mysql-prisma.js";

let database: MysqlTestDatabase;
let prisma: ReturnType<typeof testMysqlPrisma>;
const stores: Store[] = [];

beforeAll(async () => {
  database = await createMysqlTestDatabase();
  prisma = testMysqlPrisma(database.url);
});

afterAll(async () => {
  for (const store of stores) await store.close();
  await prisma?.$disconnect();
  await database?.drop();
});

describe("from a URL", () => {
  it.each(["mysql://u:p@db:3306/app", "mariadb://u@db/app", "MySQL://db/app"])("%s is MySQL", (url) => {
    expect(dialectForUrl(url).name).toBe("mysql");
  });

  it("keeps PostgreSQL URLs for PostgreSQL and lists MySQL among the supported databases", () => {
    expect(dialectForUrl("postgresql://db/app").name).toBe("postgresql");
    expect(() => dialectForUrl("mysqlx://db/app")).toThrow(
      'Invalid option "databaseUrl": "mysqlx://db/app" is not a URL of a supported database. Supported: PostgreSQL (postgresql://user:password@127.0.0.1:5432/app), SQLite (file:./dev.db), MySQL (mysql://user:password@127.0.0.1:3306/app).',
    );
  });

  it("opens a store that works on both spellings, and refuses a URL without a database at once", async () => {
    for (const url of [database.url, database.url.replace(/^mysql:/, "mariadb:")]) {
      const store = openStore(url, { max: 1 });
      stores.push(store);
      expect(store).toMatchObject({ dialect: "mysql", displayName: "MySQL" });
      expect(await store.check()).toBeUndefined();
      expect(await store.countTasks()).toEqual([]);
    }
    const error = (() => {
      try {
        openStore("mysql://root@127.0.0.1:3306");
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(TaskQueueConfigError);
    expect((error as Error).message).toBe(
      'Invalid option "databaseUrl": "mysql://root@127.0.0.1:3306" names no database; add it as the path: mysql://user:password@host:3306/app.',
    );
  });
});

describe("from a Prisma client", () => {
  it("a client of the mysql provider is MySQL, and its store runs through that client", async () => {
    expect((prisma as unknown as { _activeProvider: string })._activeProvider).toBe("mysql");
    expect(dialectForPrisma(prisma).name).toBe("mysql");
    expect(dialectForProvider("mysql")?.name).toBe("mysql");
    const store = prismaStore(prisma, taskTable());
    expect(store.dialect).toBe("mysql");
    expect(await store.check()).toBeUndefined();
    expect((await store.now()).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it("a PostgreSQL client stays PostgreSQL", async () => {
    const pg = testPrisma("postgresql://nobody@127.0.0.1:1/none");
    try {
      expect(dialectForPrisma(pg).name).toBe("postgresql");
    } finally {
      await pg.$disconnect();
    }
  });
});
