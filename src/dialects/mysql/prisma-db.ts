// The Prisma implementation of the MySQL connection seam: statements go through $queryRawUnsafe / $executeRawUnsafe of
// the given client (on @prisma/adapter-mariadb), so inside an interactive transaction they run in that transaction.

import type { CountingDb, DbRequest } from "../../store/db.js";

/** The part of a Prisma client (or transaction client) the seam needs. */
interface PrismaRawClient {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): PromiseLike<T> & DbRequest;
  $executeRawUnsafe(query: string, ...values: unknown[]): PromiseLike<number> & DbRequest;
  $transaction?: unknown;
}

/** True when `client` looks like a Prisma client or transaction client. */
export function isPrismaRawClient(client: unknown): client is PrismaRawClient {
  const c = client as { $queryRawUnsafe?: unknown; $executeRawUnsafe?: unknown } | null;
  return typeof c?.$queryRawUnsafe === "function" && typeof c.$executeRawUnsafe === "function";
}

type InteractiveTransaction = (fn: (tx: PrismaRawClient) => Promise<unknown>, options?: object) => Promise<unknown>;

/**
 * Wraps a Prisma client or transaction client as a CountingDb. A client that can open interactive transactions gets
 * transaction() (READ COMMITTED, like the store's own pool); a transaction client has none: its statements are
 * already in the app's transaction.
 */
export function prismaDb(client: PrismaRawClient): CountingDb {
  const db: CountingDb = {
    query: async <Row>(sql: string, values: readonly unknown[]) => client.$queryRawUnsafe<Row[]>(sql, ...values),
    write: async (sql: string, values: readonly unknown[]) => Number(await client.$executeRawUnsafe(sql, ...values)),
    request: (sql: string, values: readonly unknown[]) => client.$executeRawUnsafe(sql, ...values),
  };
  if (typeof client.$transaction === "function") {
    const begin = (client.$transaction as InteractiveTransaction).bind(client);
    db.transaction = <T>(fn: (tx: CountingDb) => Promise<T>) => begin((tx) => fn(prismaDb(tx)), { isolationLevel: "ReadCommitted" }) as Promise<T>;
  }
  return db;
}
