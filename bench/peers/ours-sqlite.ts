// prisma-task-queue on SQLite as a benchmark peer, with the library's default options: no broker, so workers in
// other processes poll (every second by default, and again at once while a poll fills every slot), and a worker in
// the app's own process is woken in-process right after the commit (the in-process latency row).

import Database from "better-sqlite3";
import { applySqliteSchema } from "../../test/support/sqlite.js";
import { benchPrisma } from "../prisma.js";
import { oursProducer } from "./ours.js";
import { startWorker } from "./ours-worker.js";
import type { Peer } from "./peer.js";

export const oursSqlite: Peer = {
  name: "ours-sqlite",
  database: "sqlite",
  broker: false,
  workerModule: "../peers/ours-worker.js",
  startInProcess: startWorker,
  measuresLateness: true,
  settings: {
    adapter: "@prisma/adapter-better-sqlite3 with its defaults (the app's client)",
    concurrency: "10 (1 process) or 5 (2 processes): the worker's `concurrency`",
    wakeups:
      "none configured (the default): worker processes poll every 1000 ms (default pollIntervalMs), again at once while a poll fills every slot; a worker in the app's process is woken in-process after each commit",
    busyTimeoutMs: "5000 (default)",
    logger: "silentLogger",
  },

  async install(target) {
    const path = target.databaseUrl.slice("file:".length);
    applySqliteSchema(path); // the shipped migration and the tests' business table
    // WAL now, as the library's first use would set it, so every copy of the template starts in it.
    const db = new Database(path);
    db.pragma("journal_mode = WAL");
    db.close();
  },

  async open(target) {
    // The harness's own reader of "how many are left": a connection that only reads, which WAL runs beside the writer.
    const reader = new Database(target.databaseUrl.slice("file:".length));
    const left = reader.prepare("SELECT (EXISTS (SELECT 1 FROM tasks WHERE status = 'pending') OR EXISTS (SELECT 1 FROM tasks WHERE status = 'running')) AS remaining");
    return oursProducer(benchPrisma(target.databaseUrl), target, {
      remaining: async () => (left.get() as { remaining: number }).remaining,
      close: async () => void reader.close(),
    });
  },

  async cleanup() {},
};
