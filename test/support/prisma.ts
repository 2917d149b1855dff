// The generated test client on a driver adapter, for a test database.

import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "../generated/client.js";

export function testPrisma(databaseUrl: string): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl }) });
}

/** The same client, emitting a "query" event for every statement it sends (for tests that count statements). */
export function countingPrisma(databaseUrl: string) {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl }), log: [{ emit: "event", level: "query" }] });
}
