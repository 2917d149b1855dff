// The dedupe-key race on SQLite across two processes, the outcome the SQLite dialect declares (docs/databases-sqlite.md):
// while one app process holds an open transaction that enqueued key K, another process's transaction enqueuing K waits
// for the write lock. If it wrote first, it then finds the committed task and gets it (created: false), as on
// PostgreSQL. If it read before it wrote, it holds a read snapshot that the other's commit makes stale, so SQLite
// cannot give it the write lock: it fails with SQLITE_BUSY at once, without waiting out its busy timeout (a transient
// error), and its retry after the other's commit gets the committed task. One row either way.
// (Inside one process Prisma's adapter runs one transaction at a time, so the conformance suite's race never meets this.)

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { silentLogger, taskQueue } from "../../src/index.js";
import { plainTasks } from "../conformance/tasks.js";
import { createSqliteDatabase, sqlitePrisma, type SqliteTestDatabase } from "../support/sqlite.js";
import { waitUntil } from "../support/wait.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
/** The child's busy timeout: long, so that a failure well before it shows SQLite did not wait it out. */
const CHILD_BUSY_MS = 60_000;
let db: SqliteTestDatabase;
let prisma: ReturnType<typeof extended>;

const extended = () => sqlitePrisma(db.url, { timeout: 5000 }).$extends(taskQueue({ tasks: plainTasks, logger: silentLogger }));

beforeAll(async () => {
  db = await createSqliteDatabase();
  prisma = extended();
});

afterAll(async () => {
  await prisma?.$taskQueue.close();
  await prisma?.$disconnect();
  await db?.drop();
});

/**
 * Resolves once the process's main thread sleeps in the kernel (clock_nanosleep) rather than waiting for events: in a
 * process that runs SQLite on its main thread (better-sqlite3, under Prisma's adapter), that is SQLite's busy handler
 * retrying a lock another connection holds. Linux's /proc tells it.
 */
async function busyWaiting(pid: number): Promise<void> {
  await waitUntil(
    () => {
      try {
        return readFileSync(`/proc/${pid}/wchan`, "utf8").includes("nanosleep");
      } catch {
        return false;
      }
    },
    "the child's enqueue to wait for the write lock (SQLite's busy handler)",
    20_000,
  );
}

/** Runs the race: this process enqueues `key` in an open transaction, the child enqueues it too, then this one commits. */
async function race(key: string, readFirst: boolean) {
  let lines: Array<Record<string, unknown>> = [];
  let ready!: () => void;
  const childReady = new Promise<void>((resolve) => (ready = resolve));
  let child: ReturnType<typeof spawn> | undefined;
  let exited: Promise<unknown> | undefined;
  const mine = await prisma.$transaction(
    async (tx) => {
      const task = await tx.task.enqueue("run", { ms: 0 }, { key, delayMs: 60_000 });
      child = spawn(process.execPath, ["--import", "tsx", "test/sqlite/fixtures/enqueue-key.ts"], {
        cwd: root,
        env: { ...process.env, DATABASE_URL: db.url, KEY: key, READ_FIRST: readFirst ? "1" : "0", BUSY_MS: String(CHILD_BUSY_MS) },
        stdio: ["pipe", "pipe", "inherit"],
      });
      exited = new Promise((resolve) => child!.once("exit", resolve));
      let buffer = "";
      child.stdout!.on("data", (chunk: Buffer) => {
        buffer += chunk.toString();
        for (let at = buffer.indexOf("\n"); at >= 0; at = buffer.indexOf("\n")) {
          const line = JSON.parse(buffer.slice(0, at)) as Record<string, unknown>;
          buffer = buffer.slice(at + 1);
          if (line.message === "ready") ready();
          else lines = [...lines, line];
        }
      });
      await childReady;
      // The child's enqueue now meets our write lock: writing first, it waits in SQLite's busy handler; having read
      // first, its snapshot cannot become a write while we hold the lock, and SQLite says SQLITE_BUSY at once.
      if (readFirst) await waitUntil(() => lines.length > 0, "the child's first attempt to fail", 20_000);
      else await busyWaiting(child.pid!);
      return task;
    },
    { timeout: 20_000 },
  );
  child!.stdin!.end("committed\n");
  await exited;
  const rows = await prisma.task.count({ where: { key } });
  return { mine, lines, rows };
}

it("a transaction that writes first waits for the lock, then gets the committed task (created: false)", { timeout: 30_000 }, async () => {
  const { mine, lines, rows } = await race(`race-write-first-${Date.now()}`, false);
  expect(mine.created).toBe(true);
  expect(lines).toEqual([{ attempt: 1, created: false, id: mine.id }]);
  expect(rows).toBe(1);
});

it("a transaction that read first fails with SQLITE_BUSY before its busy timeout (transient); its retry gets the committed task", { timeout: 90_000 }, async () => {
  const { mine, lines, rows } = await race(`race-read-first-${Date.now()}`, true);
  expect(mine.created).toBe(true);
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatchObject({ attempt: 1, transient: true, code: "SQLITE_BUSY" });
  expect(lines[0]!.afterMs).toBeLessThan(CHILD_BUSY_MS / 2); // it did not wait out its busy timeout
  expect(lines[1]).toEqual({ attempt: 2, created: false, id: mine.id });
  expect(rows).toBe(1);
});
