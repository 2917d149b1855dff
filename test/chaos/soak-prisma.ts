// The soak's Prisma client for a database URL: the generated PostgreSQL, MySQL or SQLite test client on its adapter. A
// SQLite client waits SOAK_BUSY_MS for the write lock, so the hold-write-lock fault outlasts it. Also how a transaction's
// COMMIT is made to fail for a lasting reason on each database (the failing-commit fault).

import { testMysqlPrisma } from "../support/mysql-prisma.js";
import { testPrisma } from "../support/prisma.js";
import { sqlitePrisma } from "../support/sqlite.js";

/** The soak's use of a client: the three generated clients share it. */
export type SoakPrisma = ReturnType<typeof testPrisma>;

/** How long a soak process's SQLite statements wait for another process's write lock. */
export const SOAK_BUSY_MS = 1000;

export function soakPrisma(url: string): SoakPrisma {
  if (url.startsWith("file:")) return sqlitePrisma(url, { timeout: SOAK_BUSY_MS }) as unknown as SoakPrisma;
  if (/^(mysql|mariadb):/.test(url)) return testMysqlPrisma(url) as unknown as SoakPrisma;
  return testPrisma(url);
}

/** The table whose deferred foreign key makes COMMIT fail (PostgreSQL, SQLite); MySQL has no deferred constraints. */
export async function createSoakGuard(prisma: SoakPrisma, url: string): Promise<void> {
  if (url.startsWith("file:")) await prisma.$executeRawUnsafe("CREATE TABLE IF NOT EXISTS soak_guard (ref TEXT REFERENCES reports(id) DEFERRABLE INITIALLY DEFERRED)");
  else if (!/^(mysql|mariadb):/.test(url))
    await prisma.$executeRawUnsafe("CREATE TABLE IF NOT EXISTS soak_guard (ref uuid REFERENCES reports(id) DEFERRABLE INITIALLY DEFERRED)");
}

type Raw = { $executeRawUnsafe(sql: string): Promise<number>; $queryRawUnsafe<T>(sql: string): Promise<T> };

/**
 * Inside transaction `tx`: makes its COMMIT fail. PostgreSQL and SQLite: a row whose deferred foreign key points
 * nowhere, checked at COMMIT. MySQL/MariaDB: the transaction's connection killed (through `client`, another connection)
 * just before COMMIT.
 */
export async function breakCommit(url: string, client: unknown, tx: unknown): Promise<void> {
  const raw = tx as Raw;
  if (url.startsWith("file:")) await raw.$executeRawUnsafe("INSERT INTO soak_guard (ref) VALUES ('no-such-report')");
  else if (!/^(mysql|mariadb):/.test(url)) await raw.$executeRawUnsafe("INSERT INTO soak_guard (ref) VALUES (gen_random_uuid())");
  else {
    const id = (await raw.$queryRawUnsafe<Array<{ id: unknown }>>("SELECT CONNECTION_ID() AS id"))[0]!.id;
    await (client as Raw).$executeRawUnsafe(`KILL ${Number(id)}`);
  }
}
