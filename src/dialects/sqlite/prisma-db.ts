// The Prisma implementation of the SQLite connection seam: statements go through $queryRawUnsafe of the app's client
// (on @prisma/adapter-better-sqlite3), so inside an interactive transaction they run in that transaction.

import type { Db } from "../../store/db.js";

/** The part of a Prisma client (or transaction client) the seam needs. */
interface PrismaRawClient {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): PromiseLike<T> & { requestTransaction?(batch: unknown): PromiseLike<unknown> };
}

/** True when `client` looks like a Prisma client or transaction client. */
export function isPrismaRawClient(client: unknown): client is PrismaRawClient {
  return typeof (client as { $queryRawUnsafe?: unknown } | null)?.$queryRawUnsafe === "function";
}

/** Wraps a Prisma client or transaction client as a Db. */
export function prismaDb(client: PrismaRawClient): Db {
  return {
    query: <Row>(sql: string, params: readonly unknown[]) => Promise.resolve(client.$queryRawUnsafe<Row[]>(sql, ...params)),
    request: (sql: string, params: readonly unknown[]) => client.$queryRawUnsafe(sql, ...params),
  };
}
