// The PostgreSQL dialect: PostgreSQL 13+ through pg (workers, cleaners, the CLI) or the app's Prisma client on
// @prisma/adapter-pg (enqueue, transactional handlers, a dashboard given `prisma`).

import type { Dialect, OpenStoreOptions } from "../../store/dialect.js";
import type { Store } from "../../store/store.js";
import type { TaskTable } from "../../store/task-table.js";
import { DialectStore } from "../../store/dialect-store.js";
import { pgMigrationLedger } from "./migration-ledger.js";
import { ownDb } from "./own-db.js";
import { poolerUrl } from "./pooler-url.js";
import { isPrismaRawClient, prismaDb } from "./prisma-db.js";
import { postgresParts } from "./store.js";
import { pgTable } from "./table.js";
import { NotAPrismaClientError } from "../../errors.js";

export const postgresDialect: Dialect = {
  name: "postgresql",
  displayName: "PostgreSQL",
  urlExample: "postgresql://user:password@127.0.0.1:5432/app",
  prismaProviders: ["postgresql", "postgres"],
  schemaFiles: { model: "prisma/task.prisma", migrations: "prisma/migrations" },
  packageFiles: ["prisma/task.prisma", "prisma/migrations"],
  capabilities: { notifications: true, inProcessWakeups: false, wakeupsWithoutBroker: "notify", asyncCommit: true },
  matchesUrl: (url) => /^postgres(ql)?:\/\//i.test(url),
  openStore(url: string, options: OpenStoreOptions): Store {
    const pool = ownDb(withStatementTimeout(url, options.statementTimeoutMs), {
      max: options.max,
      applicationName: options.applicationName,
      preparedStatements: options.preparedStatements,
      directUrl: options.directUrl,
      connectTimeoutMs: options.connectTimeoutMs,
      queryTimeoutMs: options.queryTimeoutMs,
    });
    return new DialectStore(postgresParts, pool, pgTable(options.table), pool);
  },
  openMigrationLedger: pgMigrationLedger,
  prismaStore(client: unknown, table: TaskTable, option: string): Store {
    if (!isPrismaRawClient(client)) throw new NotAPrismaClientError(`the ${option} option`, client);
    return new DialectStore(postgresParts, prismaDb(client), pgTable(table));
  },
};

/**
 * The URL with JIT off and a server-side statement timeout, unless the URL sets `options` itself or goes through
 * PgBouncer in transaction mode (which refuses the `options` startup parameter unless told to ignore it).
 */
function withStatementTimeout(url: string, statementTimeoutMs: number | undefined): string {
  if (statementTimeoutMs === undefined || poolerUrl(url).transactionPooled) return url;
  const parsed = new URL(url);
  if (!parsed.searchParams.has("options")) parsed.searchParams.set("options", `-c jit=off -c statement_timeout=${statementTimeoutMs}`);
  return parsed.toString();
}
