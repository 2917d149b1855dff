// The SQLite dialect: a database file shared by the app (Prisma 7 on @prisma/adapter-better-sqlite3) and the queue's
// workers, cleaners and CLI (better-sqlite3, an optional peer dependency loaded only here). The embedded default.

import type { Dialect, OpenStoreOptions } from "../../store/dialect.js";
import type { Store } from "../../store/store.js";
import type { TaskTable } from "../../store/task-table.js";
import { DialectStore } from "../../store/dialect-store.js";
import { isSqliteUrl, requireExistingFile, sqliteFilePath } from "./file-url.js";
import { sqliteMigrationLedger } from "./migration-ledger.js";
import { SqliteFileDb } from "./own-db.js";
import { isPrismaRawClient, prismaDb } from "./prisma-db.js";
import { sqliteParts } from "./store.js";
import { sqliteTable } from "./table.js";
import { NotAPrismaClientError } from "../../errors.js";

export const sqliteDialect: Dialect = {
  name: "sqlite",
  displayName: "SQLite",
  urlExample: "file:./dev.db",
  prismaProviders: ["sqlite"],
  schemaFiles: { model: "prisma/sqlite/task.prisma", migrations: "prisma/sqlite/migrations" },
  packageFiles: ["prisma/sqlite"],
  capabilities: { notifications: false, inProcessWakeups: true, wakeupsWithoutBroker: "in-process", asyncCommit: false },
  matchesUrl: isSqliteUrl,
  openStore(url: string, options: OpenStoreOptions): Store {
    const table = sqliteTable(options.table);
    const path = sqliteFilePath(url, "databaseUrl");
    requireExistingFile(path, url, "databaseUrl");
    const file = new SqliteFileDb(path, { busyTimeoutMs: options.busyTimeoutMs });
    return new DialectStore(sqliteParts, file, table, file);
  },
  adapterProblem(adapterName: string): string | undefined {
    if (!adapterName.includes("libsql")) return undefined;
    return (
      `${adapterName} is not supported: measured with Prisma 7.10 it opened a native connection per interactive transaction ` +
      `and never closed it (open files 28 → 4,035 after 2,000 transactions), and after one SQLITE_BUSY its client failed every ` +
      `later write. Use @prisma/adapter-better-sqlite3 on the same file: new PrismaBetterSqlite3({ url: "file:./dev.db" }).`
    );
  },
  openMigrationLedger: sqliteMigrationLedger,
  prismaStore(client: unknown, table: TaskTable, option: string): Store {
    if (!isPrismaRawClient(client)) throw new NotAPrismaClientError(`the ${option} option`, client);
    return new DialectStore(sqliteParts, prismaDb(client), sqliteTable(table));
  },
};
