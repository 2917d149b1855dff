// The client of a SQLite app has one connection: a transactional handler whose COMMIT fails leaves the app's client
// working, and an enqueue on the client from inside its own open transaction fails at once instead of waiting for itself.

import { afterEach, describe, expect, it } from "vitest";
import { silentLogger, taskQueue, TaskEnqueueWouldWaitError } from "../../src/index.js";
import { sqliteHarness } from "../conformance/dialects.js";
import { ConformanceBed, type QueueClient } from "../conformance/harness.js";
import { readRuns } from "../conformance/run-log.js";
import { conformanceTasks } from "../conformance/tasks.js";
import { sqlitePrisma } from "../support/sqlite.js";
import { waitUntil } from "../support/wait.js";

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of cleanup.splice(0)) await close();
});

async function open() {
  const bed = await ConformanceBed.open(sqliteHarness);
  cleanup.push(() => bed.close());
  const base = sqlitePrisma(bed.url);
  const prisma = base.$extends(taskQueue({ tasks: conformanceTasks, logger: silentLogger })) as unknown as QueueClient;
  cleanup.unshift(async () => {
    await prisma.$taskQueue.close();
    await base.$disconnect();
  });
  return { bed, base, prisma };
}

describe("SQLite: one connection per client", () => {
  it("a transactional handler whose COMMIT fails, on the app's plain client, leaves that client working", { timeout: 60_000 }, async () => {
    const { bed, base, prisma } = await open();
    // A report written with result 'break-commit' violates a deferred foreign key, which SQLite checks at COMMIT.
    await base.$executeRawUnsafe(`CREATE TABLE guard (ref TEXT REFERENCES reports(id) DEFERRABLE INITIALLY DEFERRED)`);
    await base.$executeRawUnsafe(
      `CREATE TRIGGER break_commit AFTER INSERT ON reports WHEN NEW.result = 'break-commit' BEGIN INSERT INTO guard VALUES ('no-such-report'); END`,
    );
    const doomed = await prisma.task.enqueue("effect", { tag: "break-commit" }, { maxAttempts: 3 });
    // The worker runs in the app's process with the app's plain client, as `prisma` of a worker may be.
    await bed.worker({ prisma: base });
    const returned: string[] = [];
    while ((await bed.store.findTask(doomed.id))?.status !== "dead") {
      returned.push((await prisma.task.enqueue("run", { ms: 0 })).id);
      returned.push((await prisma.$transaction(async (tx) => tx.task.enqueue("effect", { tag: "fine" }))).id);
      await new Promise((resolve) => setImmediate(resolve)); // SQLite answers synchronously: let the worker's timers run
    }
    await waitUntil(
      async () => (await Promise.all(returned.map((id) => bed.store.findTask(id)))).every((task) => task?.status === "succeeded"),
      "every returned task to succeed",
      20_000,
    );
    const dead = await bed.store.findTask(doomed.id);
    expect(dead?.attempts).toBe(3);
    expect(dead?.lastError).toMatch(/Foreign/i);
    expect(await base.report.count({ where: { result: "break-commit" } })).toBe(0);
    expect(await base.report.count({ where: { result: "fine" } })).toBe(returned.length / 2);
    const runs = readRuns(bed.runLog);
    expect(returned.filter((id) => runs.get(id)?.filter((event) => event.e === "start").length !== 1)).toEqual([]);
  });

  it("an enqueue on the client inside that client's open transaction fails at once, naming the fix", async () => {
    const { bed, prisma } = await open();
    const outcome = await prisma
      .$transaction(async (tx) => {
        await tx.task.enqueue("run", { ms: 0 });
        await prisma.task.enqueue("run", { ms: 1 }); // the client, not tx
      })
      .catch((error: unknown) => error);
    expect(outcome).toBeInstanceOf(TaskEnqueueWouldWaitError);
    expect((outcome as Error).message).toBe(
      `enqueue of "run" was called on the client while a transaction of the same client is open in this call: on SQLite the ` +
        `client has one connection, so this enqueue would wait for that transaction, which waits for it. Enqueue through the ` +
        `transaction client (tx.task.enqueue inside $transaction(async (tx) => ...)), or after the transaction has ended.`,
    );
    expect((await bed.store.countTasks()).reduce((sum, row) => sum + row.count, 0)).toBe(0);
    // After the transaction, the same call works.
    const task = await prisma.task.enqueue("run", { ms: 0 });
    expect((await bed.store.findTask(task.id))?.status).toBe("pending");
  });
});
