// The generated MySQL test client (test/prisma-mysql, with the shipped MySQL model) on @prisma/adapter-mariadb, for a
// test database: the client an app on MySQL or MariaDB would use.

import { PrismaMariaDb } from "@prisma/adapter-mariadb";
import { PrismaClient } from "../generated-mysql/client.js";

export function testMysqlPrisma(databaseUrl: string): PrismaClient {
  return new PrismaClient({ adapter: new PrismaMariaDb(databaseUrl) });
}
