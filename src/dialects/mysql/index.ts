// The MySQL dialect: MySQL 8.0.4+ and MariaDB 10.6+ through the mariadb driver (workers, cleaners, the CLI, the
// dashboard's own pool; an optional peer dependency, loaded when such a store opens) or the app's Prisma client on
// @prisma/adapter-mariadb (enqueue, transactional handlers, a dashboard given `prisma`).

import type { Dialect, OpenStoreOptions } from "../../store/dialect.js";
import type { Store } from "../../store/store.js";
import type { TaskTable } from "../../store/task-table.js";
import { DialectStore } from "../../store/dialect-store.js";
import { mysqlMigrationLedger } from "./migration-ledger.js";
import { ownDb } from "./own-db.js";
import { isPrismaRawClient, prismaDb } from "./prisma-db.js";
import { mysqlParts } from "./store.js";
import { mysqlTable } from "./table.js";
import { NotAPrismaClientError } from "../../errors.js";

export const mysqlDialect: Dialect = {
  name: "mysql",
  displayName: "MySQL",
  urlExample: "mysql://user:password@127.0.0.1:3306/app",
  prismaProviders: ["mysql"],
  schemaFiles: { model: "prisma/mysql/task.prisma", migrations: "prisma/mysql/migrations" },
  packageFiles: ["prisma/mysql"],
  capabilities: { notifications: false, inProcessWakeups: false, wakeupsWithoutBroker: "polling", asyncCommit: false },
  matchesUrl: (url) => /^(mysql|mariadb):\/\//i.test(url),
  openStore(url: string, options: OpenStoreOptions): Store {
    const pool = ownDb(url, {
      max: options.max,
      applicationName: options.applicationName,
      connectTimeoutMs: options.connectTimeoutMs,
      queryTimeoutMs: options.queryTimeoutMs,
      statementTimeoutMs: options.statementTimeoutMs,
    });
    return new DialectStore(mysqlParts, pool, mysqlTable(options.table), pool);
  },
  openMigrationLedger: mysqlMigrationLedger,
  prismaStore(client: unknown, table: TaskTable, option: string): Store {
    if (!isPrismaRawClient(client)) throw new NotAPrismaClientError(`the ${option} option`, client);
    return new DialectStore(mysqlParts, prismaDb(client), mysqlTable(table));
  },
};
