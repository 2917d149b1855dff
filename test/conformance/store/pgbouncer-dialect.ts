// PostgreSQL through PgBouncer in transaction mode, as a dialect of the store-level suite: the stores' pools go through
// PgBouncer (`pgbouncer=true`, so no named prepared statements), their sessions of their own (the leader lock, LISTEN)
// and the test's own connection go to the server directly.

import { inject } from "vitest";
import { createTestDatabase } from "../../support/database.js";
import { PgBouncer } from "../../support/pgbouncer.js";
import { testPrisma } from "../../support/prisma.js";
import { postgresStoreDialect, type StoreDialect } from "./dialects.js";

/** The same database on the server itself. */
function direct(url: string): string {
  const parsed = new URL(url);
  parsed.port = new URL(inject("databaseUrl")).port || "5432";
  parsed.searchParams.delete("pgbouncer");
  return parsed.toString();
}

/**
 * The dialect through a PgBouncer of its own, started by its first database and stopped with its last, with `poolSize`
 * server connections per database (PgBouncer.start).
 */
export function pgbouncerDialect(poolSize?: number): StoreDialect {
  let bouncer: Promise<PgBouncer> | undefined;
  let users = 0;
  const acquire = async () => {
    users++;
    bouncer ??= PgBouncer.start(inject("databaseUrl"), poolSize);
    return bouncer;
  };
  const release = async () => {
    if (--users > 0 || !bouncer) return;
    const running = bouncer;
    bouncer = undefined;
    await (await running).stop();
  };
  return {
    ...postgresStoreDialect,
    through: "PgBouncer (transaction mode)",
    async createDatabase() {
      const database = await createTestDatabase();
      const pooler = await acquire();
      return {
        url: pooler.url(database.url),
        async drop() {
          await database.drop();
          await release();
        },
      };
    },
    // The app's Prisma client through PgBouncer too (pg on @prisma/adapter-pg prepares no named statement).
    prismaClient: (url) => {
      const parsed = new URL(url);
      parsed.searchParams.delete("pgbouncer");
      return testPrisma(parsed.toString());
    },
    raw: (url) => postgresStoreDialect.raw(direct(url)),
    storeOptions: (url) => ({ directUrl: direct(url) }),
  };
}

export const pgbouncerStoreDialect = pgbouncerDialect();
