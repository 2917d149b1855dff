// The generated test client on a driver adapter, for a test database.

import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "../generated/client.js";

export function testPrisma(databaseUrl: string): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl }) });
}
