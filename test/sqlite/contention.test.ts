// SQLite under contention, proven rather than hoped for: a process holds the file's write lock (or, in a rollback
// journal, a read lock) longer than the app's busy timeout, over and over, while the app enqueues in every form and two
// worker processes, a cleaner and a worker inside the app's own process write the same file. SQLITE_BUSY is counted
// where it struck; nothing acknowledged may be lost, nothing rolled back may run, and the app's client must keep
// working. The last case shows why the extension sends ROLLBACK after a failed COMMIT: without it, Prisma's adapter
// leaves the client broken.

import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { classifySqliteError } from "../../src/dialects/sqlite/errors.js";
import { silentLogger, taskQueue } from "../../src/index.js";
import { readRuns } from "../conformance/run-log.js";
import { ConformanceBed } from "../conformance/harness.js";
import { sqliteHarness } from "../conformance/dialects.js";
import { conformanceTasks } from "../conformance/tasks.js";
import { sqlitePrisma } from "../support/sqlite.js";
import { waitUntil } from "../support/wait.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const BUSY_TIMEOUT_MS = 150;
const cleanup: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

/** A child process that holds a lock on `file` for holdMs at a time; resolves once it holds it the first time. */
async function holdLock(file: string, lock: "write" | "read", holdMs: number, firstHoldMs = holdMs): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "test/sqlite/fixtures/lock-holder.ts"], {
    cwd: root,
    env: { ...process.env, FILE: file, LOCK: lock, HOLD_MS: String(holdMs), GAP_MS: "60", FIRST_HOLD_MS: String(firstHoldMs) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  cleanup.push(async () => {
    child.kill("SIGKILL");
    await exited;
  });
  await new Promise((resolve) => child.stdout.once("data", resolve));
  return child;
}

type Client = ReturnType<ConformanceBed["prisma"]>;

interface Tally {
  acknowledged: string[];
  rolledBack: string[];
  busyAtStatement: number;
  busyAtCommit: number;
  other: string[];
}

/** One app transaction of form `form`; its tasks counted as acknowledged or rolled back by how it ended. */
async function appTransaction(prisma: Client, form: number, tally: Tally): Promise<void> {
  const written: string[] = [];
  let callbackDone = false;
  try {
    if (form === 0) {
      // Interactive, reading before it writes (a deferred transaction that must upgrade to the write lock).
      await prisma.$transaction(async (tx: Client) => {
        await (tx as unknown as { report: { findFirst(): Promise<unknown> } }).report.findFirst();
        written.push((await tx.task.enqueue("run", { ms: 0 })).id);
        written.push((await tx.task.enqueue("run", { ms: 0 })).id);
        callbackDone = true;
      });
    } else if (form === 1) {
      await prisma.$transaction(async (tx: Client) => {
        written.push((await tx.task.enqueue("run", { ms: 0 })).id);
        callbackDone = true;
      });
    } else if (form === 2) {
      // A batch transaction: its requests run together; its ids are known only once it resolved.
      const results = (await (prisma as unknown as { $transaction(items: unknown[]): Promise<Array<{ id: string }>> }).$transaction([
        prisma.task.enqueue("run", { ms: 0 }),
        prisma.task.enqueue("run", { ms: 0 }),
      ])) as Array<{ id: string }>;
      written.push(...results.map((task) => task.id));
    } else {
      written.push((await prisma.task.enqueue("run", { ms: 0 })).id);
    }
    tally.acknowledged.push(...written);
  } catch (error) {
    tally.rolledBack.push(...written);
    if (classifySqliteError(error).kind !== "unreachable") tally.other.push((error as Error).message.split("\n").slice(-1)[0]!);
    else if (callbackDone) tally.busyAtCommit += 1;
    else tally.busyAtStatement += 1;
  }
}

describe("SQLite under contention", () => {
  it("WAL: every enqueue form, two worker processes, a cleaner and an in-process worker against a lock held past the busy timeout", { timeout: 90_000 }, async () => {
    const bed = await ConformanceBed.open(sqliteHarness);
    cleanup.push(() => bed.close());
    const file = bed.url.replace(/^file:/, "");
    const base = sqlitePrisma(bed.url, { timeout: BUSY_TIMEOUT_MS });
    const prisma = base.$extends(taskQueue({ tasks: conformanceTasks, logger: silentLogger })) as unknown as Client;
    cleanup.push(async () => {
      await prisma.$taskQueue.close();
      await prisma.$disconnect();
    });
    await Promise.all([bed.spawnWorker("w1"), bed.spawnWorker("w2")]);
    await bed.cleaner().start();
    await bed.worker({ pollIntervalMs: 200 }); // in the app's own process: woken in-process
    await holdLock(file, "write", BUSY_TIMEOUT_MS * 3);

    const tally: Tally = { acknowledged: [], rolledBack: [], busyAtStatement: 0, busyAtCommit: 0, other: [] };
    const until = Date.now() + 6000;
    await Promise.all(
      [0, 1, 2, 3].map(async (form) => {
        // An app that leaves the file idle now and then, as a web app does: the lock holder gets its turns.
        while (Date.now() < until) {
          await appTransaction(prisma, form, tally);
          await new Promise((resolve) => setTimeout(resolve, 15));
        }
      }),
    );
    for (const close of cleanup.splice(-1)) await close(); // the lock holder stops; the queue drains
    console.log(`WAL contention: ${JSON.stringify({ ...tally, acknowledged: tally.acknowledged.length, rolledBack: tally.rolledBack.length })}`);

    expect(tally.other).toEqual([]);
    expect(tally.busyAtStatement + tally.busyAtCommit).toBeGreaterThan(0);
    expect(tally.acknowledged.length).toBeGreaterThan(0);
    await waitUntil(
      async () => {
        const tasks = await Promise.all(tally.acknowledged.map((id) => bed.store.findTask(id)));
        return tasks.every((task) => task?.status === "succeeded");
      },
      "every acknowledged task to succeed",
      40_000,
    );
    const runs = readRuns(bed.runLog);
    expect(tally.acknowledged.filter((id) => (runs.get(id) ?? []).filter((e) => e.e === "start").length !== 1)).toEqual([]);
    for (const id of tally.rolledBack) {
      expect(await bed.store.findTask(id), `rolled-back task ${id} has a row`).toBeUndefined();
      expect(runs.has(id), `rolled-back task ${id} ran`).toBe(false);
    }
    // The client still works: a transaction after the storm commits.
    const after = await prisma.$transaction(async (tx: Client) => tx.task.enqueue("run", { ms: 0 }));
    await waitUntil(async () => (await bed.store.findTask(after.id))?.status === "succeeded", "the task enqueued after the storm to run");
  });

  it("rollback journal: a reader held past the busy timeout fails COMMIT; the extension's ROLLBACK keeps the client working", { timeout: 60_000 }, async () => {
    const bed = await ConformanceBed.open(sqliteHarness);
    cleanup.push(() => bed.close());
    const file = bed.url.replace(/^file:/, "");
    const raw = new Database(file);
    raw.pragma("journal_mode = DELETE");
    raw.close();
    // The reader holds the file while the client readies itself, so its switch to WAL fails and the file keeps its
    // rollback journal (as on a filesystem without WAL).
    await holdLock(file, "read", BUSY_TIMEOUT_MS * 3, 1500);
    const base = sqlitePrisma(bed.url, { timeout: BUSY_TIMEOUT_MS });
    const prisma = base.$extends(taskQueue({ tasks: conformanceTasks, logger: silentLogger })) as unknown as Client;
    cleanup.push(async () => {
      await prisma.$taskQueue.close();
      await prisma.$disconnect();
    });
    const tally: Tally = { acknowledged: [], rolledBack: [], busyAtStatement: 0, busyAtCommit: 0, other: [] };
    const until = Date.now() + 5000;
    while (Date.now() < until) await appTransaction(prisma, 1, tally);
    console.log(`rollback-journal contention: ${JSON.stringify({ ...tally, acknowledged: tally.acknowledged.length, rolledBack: tally.rolledBack.length })}`);
    expect(new Database(file, { readonly: true }).pragma("journal_mode", { simple: true })).toBe("delete");
    expect(tally.other).toEqual([]);
    expect(tally.busyAtCommit).toBeGreaterThan(0);
    expect(tally.acknowledged.length).toBeGreaterThan(0);
    for (const id of tally.acknowledged) expect((await bed.store.findTask(id))?.status, `acknowledged task ${id}`).toBe("pending");
    for (const id of tally.rolledBack) expect(await bed.store.findTask(id), `task ${id} of a failed COMMIT`).toBeUndefined();
  });

  it("without the extension, one failed COMMIT leaves Prisma's client unable to start another transaction", { timeout: 30_000 }, async () => {
    const bed = await ConformanceBed.open(sqliteHarness);
    cleanup.push(() => bed.close());
    const file = bed.url.replace(/^file:/, "");
    const raw = new Database(file);
    raw.pragma("journal_mode = DELETE");
    raw.close();
    const plain = sqlitePrisma(bed.url, { timeout: BUSY_TIMEOUT_MS });
    cleanup.push(() => plain.$disconnect());
    await plain.report.count(); // connect before the reader arrives
    await holdLock(file, "read", 2000);
    await expect(plain.$transaction(async (tx) => tx.report.create({ data: { status: "a" } }))).rejects.toSatisfy(
      (error) => classifySqliteError(error).kind === "unreachable",
    );
    await expect(plain.$transaction(async (tx) => tx.report.create({ data: { status: "b" } }))).rejects.toThrow(/within a transaction/);
  });
});
