// The Prisma implementation of the PostgreSQL connection seam: statements go through $queryRawUnsafe of the given
// client, so inside an interactive transaction they run in that transaction.

import type { Db } from "../../store/db.js";

/** The part of a Prisma client (or transaction client) the seam needs. */
interface PrismaRawClient {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): PromiseLike<T> & { requestTransaction?(batch: unknown): PromiseLike<unknown> };
  $transaction?: unknown;
}

/** True when `client` looks like a Prisma client or transaction client. */
export function isPrismaRawClient(client: unknown): client is PrismaRawClient {
  return typeof (client as { $queryRawUnsafe?: unknown } | null)?.$queryRawUnsafe === "function";
}

/** Wraps a Prisma client or transaction client as a Db. */
export function prismaDb(client: PrismaRawClient): Db {
  return {
    query: <Row>(text: string, values: readonly unknown[]) => Promise.resolve(client.$queryRawUnsafe<Row[]>(text, ...values)),
    request: (text: string, values: readonly unknown[]) => client.$queryRawUnsafe(text, ...values),
  };
}
