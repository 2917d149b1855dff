// The Prisma client every scenario writes its business row with: the generated test client (run `npm run generate`
// first) on the pg driver adapter, with a pool big enough for the concurrency-10 scenario.

import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "../test/generated/client.js";

export type BenchPrisma = PrismaClient;

/** A client on `url` whose pool holds up to `max` connections (default 20). */
export function benchPrisma(url: string, max = 20): BenchPrisma {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max }) });
}

/**
 * Options of every business transaction in the benchmark, for every peer alike: Prisma's default maxWait of 2 s
 * fails transactions outright when a busy shared machine makes the pool queue longer than that.
 */
export const BUSINESS_TRANSACTION = { maxWait: 20_000, timeout: 20_000 };
