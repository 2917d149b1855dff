// The soak's Prisma client for a database URL: the generated PostgreSQL, MySQL or SQLite test client on its adapter. A
// SQLite client waits SOAK_BUSY_MS for the write lock, so the hold-write-lock fault outlasts it.

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
