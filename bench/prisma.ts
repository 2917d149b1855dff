// The Prisma client every scenario writes its business row with: the generated test client of the database's dialect
// (run `npm run generate` first) on its driver adapter, with a pool big enough for the concurrency-10 scenario.

import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaMariaDb } from "@prisma/adapter-mariadb";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "../test/generated/client.js";
import { PrismaClient as MysqlPrismaClient } from "../test/generated-mysql/client.js";
import { PrismaClient as SqlitePrismaClient } from "../test/generated-sqlite/client.js";

/** The harness's use of a client: the generated clients (PostgreSQL's, SQLite's, MySQL's) share it. */
export type BenchPrisma = PrismaClient;

/**
 * A client on `url`: PostgreSQL's on the pg adapter whose pool holds up to `max` connections (default 20); for a
 * mysql:// or mariadb:// URL MySQL's on @prisma/adapter-mariadb, its pool likewise up to `max` (the driver's default of
 * 10 leaves no connection beside ten open transactions); or for a file: URL SQLite's on @prisma/adapter-better-sqlite3
 * with the adapter's defaults (as an app would write it).
 */
export function benchPrisma(url: string, max = 20): BenchPrisma {
  if (url.startsWith("file:")) return new SqlitePrismaClient({ adapter: new PrismaBetterSqlite3({ url }) }) as unknown as BenchPrisma;
  if (/^(mysql|mariadb):/.test(url)) {
    const pooled = new URL(url);
    pooled.searchParams.set("connectionLimit", String(max));
    return new MysqlPrismaClient({ adapter: new PrismaMariaDb(pooled.toString()) }) as unknown as BenchPrisma;
  }
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max }) });
}

/**
 * Options of every business transaction in the benchmark, for every peer alike: Prisma's default maxWait of 2 s
 * fails transactions outright when a busy shared machine makes the pool queue longer than that.
 */
export const BUSINESS_TRANSACTION = { maxWait: 20_000, timeout: 20_000 };
