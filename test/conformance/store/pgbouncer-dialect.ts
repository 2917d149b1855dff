// PostgreSQL through PgBouncer in transaction mode, as a dialect of the store-level suite: the stores' pools go through
// PgBouncer (`pgbouncer=true`, so no named prepared statements), their sessions of their own (the leader lock, LISTEN)
// and the test's own connection go to the server directly.

import { inject } from "vitest";
import { createTestDatabase } from "../../support/database.js";
import { PgBouncer } from "../../support/pgbouncer.js";
import { testPrisma } from "../../support/prisma.js";
import { postgresStoreDialect, type StoreDialect } from "./dialects.js";

let bouncer: Promise<PgBouncer> | undefined;
let users = 0;

/** The file's PgBouncer, started by its first database and stopped with its last. */
async function acquire(): Promise<PgBouncer> {
  users++;
  bouncer ??= PgBouncer.start(inject("databaseUrl"));
  return bouncer;
}

async function release(): Promise<void> {
  if (--users > 0 || !bouncer) return;
  const running = bouncer;
  bouncer = undefined;
  await (await running).stop();
}

/** The same database on the server itself. */
function direct(url: string): string {
  const parsed = new URL(url);
  parsed.port = new URL(inject("databaseUrl")).port || "5432";
  parsed.searchParams.delete("pgbouncer");
  return parsed.toString();
}

export const pgbouncerStoreDialect: StoreDialect = {
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
