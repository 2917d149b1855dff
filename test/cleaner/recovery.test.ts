// The cleaner's recovery of expired leases on each dialect, by the task's policy (retry, dead with a dead letter, or a
// function that may compensate); a lease that holds, or a row another transaction is writing, is left alone.

import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createCleaner, type Cleaner } from "../../src/cleaner/create-cleaner.js";
import { silentLogger, taskQueue } from "../../src/index.js";
import { StoreBed, type TaskSpec } from "../conformance/store/bed.js";
import { STORE_DIALECTS } from "../conformance/store/dialects.js";
import { cleanerTasks } from "../fixtures/cleaner-tasks.js";
import { uniquePrefix, WakeupCounter } from "../support/broker.js";
import { waitUntil } from "../support/wait.js";
import { DeadLetters } from "./dead-letters.js";

const OWNER = "vanished-worker:1";
const lostBy = (attempt: number, of = 5) => `lease expired: worker ${OWNER} stopped renewing it during attempt ${attempt} of ${of}`;

describe.each(STORE_DIALECTS)("recovery of expired leases ($name)", (dialect) => {
  let bed: StoreBed;
  let counter: WakeupCounter;
  let letters: DeadLetters;
  let prisma: { $taskQueue: { close(): Promise<void> }; $disconnect(): Promise<void> };
  let cleaner: Cleaner;
  const events: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = [];
  const log = (level: string) => (message: string, fields?: Record<string, unknown>) => void events.push({ level, message, fields });
  const logger = { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };

  beforeAll(async () => {
    bed = await StoreBed.open(dialect);
    bed.takes = { names: Object.keys(cleanerTasks).concat("from-a-newer-release"), queues: ["default", "images"] };
    const prefix = uniquePrefix();
    counter = await WakeupCounter.start(prefix, ["default"]);
    letters = await DeadLetters.start(prefix);
    prisma = bed.dialect
      .prismaClient(bed.url)
      .$extends(taskQueue({ tasks: cleanerTasks, amqpUrl: inject("amqpUrl"), amqpPrefix: prefix, logger: silentLogger })) as never;
    cleaner = createCleaner({ tasks: cleanerTasks, databaseUrl: bed.url, amqpUrl: inject("amqpUrl"), amqpPrefix: prefix, prisma, logger });
  });

  afterAll(async () => {
    await cleaner?.stop();
    await prisma?.$taskQueue.close();
    await prisma?.$disconnect();
    await letters?.close();
    await counter?.close();
    await bed?.close();
  });

  /** Running tasks whose worker vanished: each claimed by OWNER (after `attempts - 1` failed runs), its lease expired. */
  async function expired(specs: Array<TaskSpec & { attempts?: number }>): Promise<string[]> {
    const ids = await bed.insert(specs.map(({ attempts: _attempts, ...spec }) => ({ name: "send-report", payload: { reportId: "r" }, ...spec })));
    for (const [i, spec] of specs.entries()) {
      for (let run = 1; run < (spec.attempts ?? 1); run++) {
        await bed.claim([ids[i]!], "earlier-worker");
        await bed.store.fail("earlier-worker", [{ id: ids[i]!, error: "Error: earlier", delayMs: 0, finalReason: null }]);
      }
    }
    await bed.expired(ids, OWNER);
    return ids;
  }

  describe("retry policy (the default)", () => {
    it("puts a task back to pending, due now, attempts kept, and wakes it", async () => {
      const [id] = await expired([{ attempts: 2 }]);
      expect(await cleaner.runOnce()).toMatchObject({ retried: 1, dead: 0, errors: [] });
      const task = await bed.task(id!);
      expect(task).toMatchObject({ status: "pending", attempts: 2, leaseOwner: null, leaseExpiresAt: null, finishedAt: null, lastError: lostBy(2) });
      expect(task.runAt.getTime()).toBeLessThanOrEqual((await bed.store.now()).getTime());
      await counter.waitFor(() => counter.counts.get(id!) === 1, "the recovered task's wake-up");
      expect(events).toContainEqual({
        level: "info",
        message: "lease expired; task back to pending",
        fields: { taskId: id, taskName: "send-report", queue: "default", attempts: 2, maxAttempts: 5, leaseOwner: OWNER },
      });
    });

    it("sends a task that used its last attempt to dead, with a dead-letter notification", async () => {
      const [id] = await expired([{ attempts: 3, maxAttempts: 3 }]);
      expect(await cleaner.runOnce()).toMatchObject({ retried: 0, dead: 1 });
      const task = await bed.task(id!);
      expect(task).toMatchObject({ status: "dead", attempts: 3 });
      expect(task.finishedAt).toBeInstanceOf(Date);
      await waitUntil(() => letters.for(id!).length === 1, "the dead-letter notification");
      expect(letters.for(id!)[0]).toMatchObject({ name: "send-report", queue: "default", attempts: 3, reason: "lease-expired" });
      expect(events.find((event) => event.message === "lease expired; task dead" && event.fields?.taskId === id)?.level).toBe("warn");
    });

    it("retries a task whose name this registry does not define", async () => {
      const [id] = await expired([{ name: "from-a-newer-release" }]);
      await cleaner.runOnce();
      expect((await bed.task(id!)).status).toBe("pending");
    });

    it("leaves a running task whose lease is still valid alone", async () => {
      const [id] = await bed.insert([{ name: "send-report", payload: { reportId: "live" } }]);
      await bed.claim([id!], OWNER, 60_000);
      await cleaner.runOnce();
      expect(await bed.task(id!)).toMatchObject({ status: "running", leaseOwner: OWNER });
    });
  });

  describe('"dead" policy', () => {
    it("abandons the task at once and notifies the dead-letter exchange", async () => {
      const [id] = await expired([{ name: "charge-card", payload: { orderId: "o1" } }]);
      expect(await cleaner.runOnce()).toMatchObject({ dead: 1 });
      const task = await bed.task(id!);
      expect(task).toMatchObject({ status: "dead", attempts: 1, leaseOwner: null, lastError: `${lostBy(1)}; abandoned by the recovery policy` });
      expect(task.finishedAt).toBeInstanceOf(Date);
      await waitUntil(() => letters.for(id!).length === 1, "the dead-letter notification");
      expect(letters.for(id!)[0]).toMatchObject({ name: "charge-card", reason: "lease-expired" });
    });
  });

  describe("function policy", () => {
    it("lets the function enqueue a compensating task through the app's client and abandon the original", async () => {
      const [id] = await expired([{ name: "book-trip", payload: { tripId: "t-7" } }]);
      expect(await cleaner.runOnce()).toMatchObject({ dead: 1, errors: [] });
      expect((await bed.task(id!)).status).toBe("dead");
      const [compensation] = await bed.store.tasksByKeys([`cancel-trip:${id}`]);
      expect(compensation).toMatchObject({ name: "cancel-trip", status: "pending" });
      expect((await bed.task(compensation!.id!)).payload).toEqual({ tripId: "t-7" });
      await waitUntil(() => letters.for(id!).length === 1, "the dead-letter notification");
    });

    it('applies a "retry" answer, and a "dead" answer', async () => {
      const [retry, dead] = await expired([
        { name: "retry-if-asked", payload: { answer: "retry" } },
        { name: "retry-if-asked", payload: { answer: "dead" } },
      ]);
      expect(await cleaner.runOnce()).toMatchObject({ retried: 1, dead: 1 });
      expect((await bed.task(retry!)).status).toBe("pending");
      expect((await bed.task(dead!)).status).toBe("dead");
    });

    it("sends the task to dead with reason recovery-failed when the function throws", async () => {
      const [id] = await expired([{ name: "broken-recovery", payload: {} }]);
      expect(await cleaner.runOnce()).toMatchObject({ dead: 1, errors: [] });
      const task = await bed.task(id!);
      expect(task.status).toBe("dead");
      expect(task.lastError).toBe(`${lostBy(1)}; abandoned by the recovery policy; the recovery function threw: ledger service unreachable`);
      await waitUntil(() => letters.for(id!).length === 1, "the dead-letter notification");
      expect(letters.for(id!)[0]).toMatchObject({ reason: "recovery-failed" });
      expect(events).toContainEqual({
        level: "error",
        message: "recovery function failed; the task goes to dead",
        fields: { taskId: id, taskName: "broken-recovery", error: "the recovery function threw: ledger service unreachable" },
      });
    });
  });

  it.runIf(dialect.writeLock === "row")("leaves a task alone while another transaction writes its row, and recovers it once released", async () => {
    const [id] = await expired([{ name: "retry-if-asked", payload: { answer: "retry" } }]);
    expect(await bed.duringWrite(id!, () => cleaner.runOnce())).toMatchObject({ retried: 0, dead: 0 });
    expect((await bed.task(id!)).status).toBe("running");
    expect(await cleaner.runOnce()).toMatchObject({ retried: 1 });
    expect((await bed.task(id!)).status).toBe("pending");
  });

  it("recovers many expired leases in batches of batchSize", async () => {
    const batched = createCleaner({ tasks: cleanerTasks, databaseUrl: bed.url, batchSize: 4, lockKey: 5151, logger: silentLogger });
    try {
      const ids = await expired(Array.from({ length: 11 }, () => ({})));
      expect(await batched.runOnce()).toMatchObject({ retried: 11, errors: [] });
      for (const id of ids) expect((await bed.task(id)).status).toBe("pending");
    } finally {
      await batched.stop();
    }
  });
});
