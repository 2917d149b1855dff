// Wake-ups between processes on one SQLite file, with no broker: a worker in another process that polls once a minute
// is woken through its Unix socket right after the app's commit and removes the socket when it stops; a task delayed by
// the app reaches it as a wake-up that says when, so its own timer claims the task at its time with no cleaner running;
// a worker killed with SIGKILL leaves a socket file that costs the app nothing and is removed by the next wake-up.

import { existsSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sqliteHarness } from "../conformance/dialects.js";
import { ConformanceBed } from "../conformance/harness.js";
import type { WorkerProcess } from "../support/worker-process.js";
import { waitUntil } from "../support/wait.js";

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of cleanup.splice(0)) await close();
});

async function open() {
  const bed = await ConformanceBed.open(sqliteHarness);
  cleanup.push(() => bed.close());
  return bed;
}

/** The socket file the worker process listens on, once it exists. */
async function socketOf(worker: WorkerProcess): Promise<string> {
  let found: string | undefined;
  await waitUntil(() => {
    for (const folder of readdirSync(tmpdir()).filter((name) => name.startsWith("ptq-wakeups-"))) {
      const name = readdirSync(join(tmpdir(), folder)).find((file) => file.startsWith(`${worker.child.pid}-`));
      if (name) found = join(tmpdir(), folder, name);
    }
    return found !== undefined;
  }, "the worker's socket file");
  return found!;
}

describe.skipIf(process.platform === "win32")("SQLite wake-ups across processes", () => {
  it("wake a worker of another process at the commit, not at its poll", async () => {
    const bed = await open();
    const worker = await bed.spawnWorker("elsewhere", { CONFORMANCE_POLL_MS: "60000" });
    const socket = await socketOf(worker);
    const prisma = bed.prisma();
    const alone = await prisma.task.enqueue("run", { ms: 0 });
    const inTransaction = await prisma.$transaction(async (tx) => tx.task.enqueue("run", { ms: 0 }));
    for (const task of [alone, inTransaction]) {
      const claimed = await worker.waitForLog((line) => line.message === "task claimed" && line.taskId === task.id, `the claim of ${task.id}`, 10_000);
      expect(claimed.via).toBe("wakeup");
    }
    // Stopped gracefully, the worker takes its socket file (and the folder, when it was the last) with it.
    worker.signal("SIGTERM");
    await waitUntil(() => worker.child.exitCode !== null, "the worker to exit");
    expect(existsSync(socket)).toBe(false);
  });

  it("tell a worker of another process when a delayed task is due: its timer claims it then, with no cleaner", async () => {
    const bed = await open();
    const worker = await bed.spawnWorker("timed", { CONFORMANCE_POLL_MS: "60000" });
    await socketOf(worker);
    const prisma = bed.prisma();
    const sent = Date.now();
    const delayed = await prisma.task.enqueue("run", { ms: 0 }, { delayMs: 1_500 });
    const claimed = await worker.waitForLog((line) => line.message === "task claimed" && line.taskId === delayed.id, "the delayed task's claim", 20_000);
    expect(claimed.via).toBe("timer");
    // At its time, not before (the database's clock is this machine's), and long before the worker's next poll.
    const claimedAt = Date.parse(String(claimed.time));
    expect(claimedAt - sent).toBeGreaterThanOrEqual(1_400);
    expect(claimedAt - sent).toBeLessThan(20_000);
    await worker.kill();
  });

  it("cost the app nothing when the worker was killed; its socket file goes at the next wake-up", async () => {
    const bed = await open();
    const worker = await bed.spawnWorker("doomed", { CONFORMANCE_POLL_MS: "60000" });
    const socket = await socketOf(worker);
    await worker.kill();
    expect(existsSync(socket)).toBe(true);
    const prisma = bed.prisma();
    const task = await prisma.task.enqueue("run", { ms: 0 });
    await waitUntil(() => !existsSync(socket), "the dead worker's socket file to be removed");
    expect((await bed.store.findTask(task.id))?.status).toBe("pending");
  });
});
