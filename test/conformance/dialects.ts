// The dialects the conformance suite runs against: each as its tests reach it (a fresh database, its generated Prisma
// client, its broker). A dialect is added here when its folder lands in src/dialects/.

import { inject } from "vitest";
import { createTestDatabase } from "../support/database.js";
import { createMysqlTestDatabase } from "../support/mysql-database.js";
import { testMysqlPrisma } from "../support/mysql-prisma.js";
import { testPrisma } from "../support/prisma.js";
import { createSqliteDatabase, sqlitePrisma } from "../support/sqlite.js";
import type { DialectHarness } from "./harness.js";
import { mysqlStoreDialect, postgresStoreDialect, sqliteStoreDialect } from "./store/dialects.js";

export const postgresHarness: DialectHarness = {
  name: "postgresql",
  store: postgresStoreDialect,
  createDatabase: createTestDatabase,
  prismaClient: (url) => testPrisma(url),
  get amqpUrl() {
    return inject("amqpUrl");
  },
};

/** PostgreSQL woken by LISTEN/NOTIFY, with no broker: what a PostgreSQL app without amqpUrl runs. */
export const postgresNotifyHarness: DialectHarness = {
  name: "postgresql + NOTIFY",
  store: postgresStoreDialect,
  createDatabase: createTestDatabase,
  prismaClient: (url) => testPrisma(url),
  amqpUrl: undefined,
  wakeups: "notify",
};

/** SQLite as the embedded default runs it: no broker; workers poll, and one in the app's process is woken directly. */
export const sqliteHarness: DialectHarness = {
  name: "sqlite",
  store: sqliteStoreDialect,
  createDatabase: createSqliteDatabase,
  prismaClient: (url) => sqlitePrisma(url),
  amqpUrl: undefined,
};

/** SQLite with RabbitMQ for wake-ups. */
export const sqliteBrokerHarness: DialectHarness = {
  name: "sqlite + RabbitMQ",
  store: sqliteStoreDialect,
  createDatabase: createSqliteDatabase,
  prismaClient: (url) => sqlitePrisma(url),
  get amqpUrl() {
    return inject("amqpUrl");
  },
};

/** MySQL 8 / MariaDB 10.6+ (the server test/support/mysql-database.ts finds), woken through RabbitMQ as PostgreSQL is. */
export const mysqlHarness: DialectHarness = {
  name: "mysql",
  store: mysqlStoreDialect,
  createDatabase: () => createMysqlTestDatabase(),
  prismaClient: (url) => testMysqlPrisma(url),
  get amqpUrl() {
    return inject("amqpUrl");
  },
};

export const DIALECT_HARNESSES: readonly DialectHarness[] = [postgresHarness, postgresNotifyHarness, sqliteHarness, sqliteBrokerHarness, mysqlHarness];
