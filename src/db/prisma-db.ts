// The Prisma implementation of the database seam: statements go through $queryRawUnsafe of the given client,
// so inside an interactive transaction they run in that transaction.

import type { Db } from "./driver.js";

/** The part of a Prisma client (or transaction client) the seam needs. */
export interface PrismaRawClient {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): PromiseLike<T> & { requestTransaction?: unknown };
}

/** Wraps a Prisma client or transaction client as a Db. */
export function prismaDb(client: PrismaRawClient): Db {
  return {
    query: <Row>(text: string, values: readonly unknown[]) =>
      Promise.resolve(client.$queryRawUnsafe<Row[]>(text, ...values)),
  };
}
