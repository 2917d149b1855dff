// The databases the testing helpers are tried on, each with the app's client extended as an app would extend it in
// its tests: no broker (PostgreSQL then wakes through NOTIFY, MySQL publishes nothing; SQLite wakes in-process workers
// only).

import { silentLogger, taskQueue } from "../../src/index.js";
import { postgresHarness, sqliteHarness, mysqlHarness } from "../conformance/dialects.js";
import type { DialectHarness } from "../conformance/harness.js";
import { appTasks, type AppClient } from "./app.js";

export const TESTING_DIALECTS: readonly DialectHarness[] = [postgresHarness, sqliteHarness, mysqlHarness];

export interface AppDatabase {
  url: string;
  /** A new client of the app on this database (each test process, or each "app instance", has its own). */
  client(): AppClient;
  close(): Promise<void>;
}

export async function appDatabase(harness: DialectHarness): Promise<AppDatabase> {
  const database = await harness.createDatabase();
  const clients: AppClient[] = [];
  return {
    url: database.url,
    client() {
      const client = harness.prismaClient(database.url).$extends(taskQueue({ tasks: appTasks, logger: silentLogger })) as AppClient;
      clients.push(client);
      return client;
    },
    async close() {
      for (const client of clients) {
        await client.$taskQueue.close();
        await client.$disconnect();
      }
      await database.drop();
    },
  };
}
