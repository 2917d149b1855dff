// The SQLite dialect's own behaviour, beyond the conformance suite: in-process wake-ups for a worker in the app's
// process, the file a URL names (relative, missing, with parameters), the time format the adapter writes, the refused
// libsql adapter, and detection from the client's provider.

import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { PrismaLibSql } from "@prisma/adapter-libsql";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { sqliteFilePath } from "../../src/dialects/sqlite/file-url.js";
import { createWorker, defineTasks, openStore, silentLogger, taskQueue, TaskQueueConfigError, type Worker } from "../../src/index.js";
import { PrismaClient } from "../generated-sqlite/client.js";
import { createSqliteDatabase, sqlitePrisma, type SqliteTestDatabase } from "../support/sqlite.js";
import { waitUntil } from "../support/wait.js";

const started: string[] = [];
const tasks = defineTasks({
  note: { payload: z.object({ n: z.number() }), handler: async (_payload, ctx) => void started.push(ctx.task.id) },
});

let db: SqliteTestDatabase;
const closers: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  db = await createSqliteDatabase();
});

afterAll(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await db?.drop();
});

function extended(client = sqlitePrisma(db.url)) {
  const prisma = client.$extends(taskQueue({ tasks, logger: silentLogger }));
  closers.push(async () => {
    await prisma.$taskQueue.close();
    await prisma.$disconnect();
  });
  return prisma;
}

async function worker(options: { pollIntervalMs: number }): Promise<Worker> {
  const instance = createWorker({ tasks, databaseUrl: db.url, logger: silentLogger, pollIntervalMs: options.pollIntervalMs });
  closers.push(() => instance.stop());
  await instance.start();
  return instance;
}

describe("in-process wake-ups", () => {
  it("starts a committed task in the app's own process without polling, and never a rolled-back one", async () => {
    const prisma = extended();
    await worker({ pollIntervalMs: 600_000 }); // a poll would come far too late for this test: only a wake-up runs the task
    const task = await prisma.$transaction(async (tx) => tx.task.enqueue("note", { n: 1 }));
    await waitUntil(() => started.includes(task.id), "the in-process worker to start the committed task", 5000);
    let rolledBack = "";
    await expect(
      prisma.$transaction(async (tx) => {
        rolledBack = (await tx.task.enqueue("note", { n: 2 })).id;
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    const outside = await prisma.task.enqueue("note", { n: 3 });
    await waitUntil(() => started.includes(outside.id), "the in-process worker to start a task enqueued outside a transaction", 5000);
    expect(started).not.toContain(rolledBack);
    const store = openStore(db.url);
    try {
      expect(await store.findTask(rolledBack)).toBeUndefined();
      expect((await store.findTask(task.id))?.status).toBe("succeeded");
    } finally {
      await store.close();
    }
  });
});

describe("the database file", () => {
  it("resolves a relative file: URL against the working directory, as the adapter does", () => {
    expect(sqliteFilePath("file:./data/app.db", "databaseUrl", "/srv/app")).toBe("/srv/app/data/app.db");
    expect(sqliteFilePath("file:/var/lib/app.db", "databaseUrl", "/srv/app")).toBe("/var/lib/app.db");
    expect(sqliteFilePath("file:///var/lib/app.db", "databaseUrl", "/srv/app")).toBe("/var/lib/app.db");
  });

  it("refuses a file that does not exist instead of creating an empty database, naming the path and the fix", async () => {
    const missing = join(dirname(db.path), "no-such.db");
    expect(() => openStore(`file:${missing}`)).toThrow(
      `Invalid option "databaseUrl": the SQLite database ${missing} (from "file:${missing}") does not exist. A relative path is resolved against the working directory`,
    );
    await expect(createWorker({ tasks, databaseUrl: `file:${missing}`, logger: silentLogger }).start()).rejects.toThrow(TaskQueueConfigError);
  });

  it("refuses URL parameters and in-memory databases, saying why", () => {
    expect(() => openStore(`${db.url}?busy_timeout=5000`)).toThrow("carries URL parameters, which @prisma/adapter-better-sqlite3 would take as part of the file name");
    expect(() => openStore("file::memory:")).toThrow("names no file: workers, cleaners and the app must share one database file");
  });

  it("sets WAL on the file when the queue opens it: a lasting change", async () => {
    const fresh = await createSqliteDatabase();
    try {
      const raw = new Database(fresh.path);
      raw.pragma("journal_mode = DELETE");
      raw.close();
      const store = openStore(fresh.url);
      expect(await store.check()).toBeUndefined();
      await store.close();
      const after = new Database(fresh.path);
      expect(after.pragma("journal_mode", { simple: true })).toBe("wal");
      after.close();
    } finally {
      await fresh.drop();
    }
  });
});

describe("the time format", () => {
  it("rejects every enqueue when the adapter writes times as unixepoch-ms, naming the option to change", async () => {
    const client = new PrismaClient({ adapter: new PrismaBetterSqlite3({ url: db.url }, { timestampFormat: "unixepoch-ms" }) });
    const prisma = extended(client);
    await expect(prisma.task.enqueue("note", { n: 4 })).rejects.toThrow(
      'Invalid option "prisma": the Prisma adapter writes times as 0, not ISO 8601 text such as "1970-01-01T00:00:00.000+00:00"; prisma-task-queue\'s SQL compares times as ISO 8601 text: create the adapter with timestampFormat "iso8601"',
    );
  });

  it("refuses to start a worker on a file holding a task whose run_at is not ISO 8601 text", async () => {
    const odd = await createSqliteDatabase();
    try {
      const raw = new Database(odd.path);
      raw.prepare(`INSERT INTO tasks (id, name, payload, run_at) VALUES ('0193c0de-0000-7000-8000-000000000001', 'note', '{"n":1}', 1732400000000)`).run();
      raw.close();
      const failing = createWorker({ tasks, databaseUrl: odd.url, logger: silentLogger });
      await expect(failing.start()).rejects.toThrow(/task 0193c0de-0000-7000-8000-000000000001 has run_at 1732400000000 \(integer\).*timestampFormat "iso8601"/);
    } finally {
      await odd.drop();
    }
  });
});

describe("detection", () => {
  it("refuses @prisma/adapter-libsql, saying what was measured and what to use", () => {
    const client = new PrismaClient({ adapter: new PrismaLibSql({ url: db.url }) });
    expect(() => client.$extends(taskQueue({ tasks, logger: silentLogger }))).toThrow(
      /^Invalid option "prisma": @prisma\/adapter-libsql is not supported: .*never closed it.*Use @prisma\/adapter-better-sqlite3/,
    );
  });

  it("finds the SQLite dialect from the client's provider and from a file: URL", async () => {
    const prisma = extended();
    const task = await prisma.task.enqueue("note", { n: 5 }, { delayMs: 60_000 });
    const store = openStore(db.url);
    try {
      expect(store.dialect).toBe("sqlite");
      expect((await store.findTask(task.id))?.payload).toEqual({ n: 5 });
    } finally {
      await store.close();
    }
  });

  it("refuses a schema option: SQLite has none", () => {
    expect(() => openStore(db.url, { schema: "app" })).toThrow('Invalid option "schema": SQLite has no schemas');
  });

  it("says which package to install when better-sqlite3 is missing, where the store opens", async () => {
    const { spawnSync } = await import("node:child_process");
    const root = join(dirname(new URL(import.meta.url).pathname), "..", "..");
    const script =
      `import { openStore } from "./src/index.ts"; ` +
      `try { await openStore(${JSON.stringify(db.url)}).close(); console.log("opened"); } catch (e) { console.log(e.code + ": " + e.message); }`;
    const child = spawnSync(
      process.execPath,
      ["--import", pathToFileURL(join(root, "test/support/hide-packages.mjs")).href, "--import", "tsx", "--input-type=module", "-e", script],
      {
        cwd: root,
        env: { ...process.env, HIDE_PACKAGES: "better-sqlite3" },
        encoding: "utf8",
      },
    );
    expect(child.stdout.trim()).toBe(
      "TASK_PACKAGE_MISSING: SQLite URLs (file:) need the better-sqlite3 package, an optional peer dependency of prisma-task-queue " +
        "that is not installed: npm install better-sqlite3@12",
    );
  });
});
