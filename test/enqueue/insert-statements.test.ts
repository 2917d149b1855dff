// How many statements an enqueue sends on PostgreSQL, counted by Prisma's query events (never read for their text):
// one per enqueue or enqueueMany call, whatever it holds (one task or thousands, new keys, taken keys, twins, delays).

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger, taskQueue } from "../../src/index.js";
import { type TestDatabase } from "../support/database.js";
import { countingPrisma } from "../support/prisma.js";
import { setupDatabase, tasks } from "./fixtures.js";

let db: TestDatabase;
let base: ReturnType<typeof countingPrisma>;
let client: ReturnType<typeof extend>;
let statements = 0;

const extend = (prisma: ReturnType<typeof countingPrisma>) => prisma.$extends(taskQueue({ tasks, logger: silentLogger }));

beforeAll(async () => {
  db = await setupDatabase();
  base = countingPrisma(db.url);
  base.$on("query", () => void statements++);
  client = extend(base);
});

afterAll(async () => {
  await client?.$taskQueue.close();
  await client?.$disconnect();
  await db?.drop();
});

/** Runs `enqueue` and answers what it resolved with and how many statements it sent. */
async function counted<T>(enqueue: () => Promise<T>): Promise<{ result: T; statements: number }> {
  const before = statements;
  const result = await enqueue();
  return { result, statements: statements - before };
}

describe("one statement per call", () => {
  it("one task: keyless or keyed, due or delayed, a taken key too", async () => {
    const key = `one:${crypto.randomUUID()}`;
    const calls: Array<[object | undefined, boolean]> = [
      [undefined, true],
      [{ delayMs: 60_000 }, true],
      [{ key }, true],
      [{ key, priority: 3 }, false],
      [{ runAt: new Date(Date.now() + 120_000) }, true],
    ];
    for (const [options, created] of calls) {
      const { result, statements: sent } = await counted(() => client.task.enqueue("send-report", { reportId: "r" }, options));
      expect(sent, JSON.stringify(options)).toBe(1);
      expect(result.created, JSON.stringify(options)).toBe(created);
    }
  });

  it("a batch with keys new, taken and twinned, and a batch without keys", async () => {
    const key = `batch:${crypto.randomUUID()}`;
    await client.task.enqueue("send-report", { reportId: "old" }, { key: `${key}:old` });
    const keyed = await counted(() =>
      client.task.enqueueMany([
        { name: "send-report", payload: { reportId: "1" } },
        { name: "send-report", payload: { reportId: "2" }, options: { key: `${key}:old` } },
        { name: "send-report", payload: { reportId: "3" }, options: { key: `${key}:twin` } },
        { name: "resize-image", payload: { url: "https://example.com/m.png", width: 9 }, options: { delayMs: 60_000 } },
        { name: "send-report", payload: { reportId: "5" }, options: { key: `${key}:twin` } },
      ]),
    );
    expect(keyed.statements).toBe(1);
    expect(keyed.result.map((task) => task.created)).toEqual([true, false, true, true, false]);
    expect(keyed.result[4]!.id).toBe(keyed.result[2]!.id);
    const keyless = await counted(() => client.task.enqueueMany(Array.from({ length: 5 }, (_, n) => ({ name: "send-report" as const, payload: { reportId: `k${n}` } }))));
    expect(keyless.statements).toBe(1);
    expect(keyless.result.every((task) => task.created)).toBe(true);
  });

  it("a batch of 3,000 tasks", async () => {
    const { result, statements: sent } = await counted(() =>
      client.task.enqueueMany(
        Array.from({ length: 3000 }, (_, n) => ({ name: "send-report" as const, payload: { reportId: `s${n}` }, options: n % 7 === 0 ? { delayMs: n } : undefined })),
      ),
    );
    expect(sent).toBe(1);
    expect(new Set(result.map((task) => task.id)).size).toBe(3000);
  });

  it("inside a transaction, each call is one statement of that transaction", async () => {
    const { result, statements: sent } = await counted(() =>
      client.$transaction(async (tx) => [
        await tx.task.enqueue("send-report", { reportId: "t1" }),
        ...(await tx.task.enqueueMany([1, 2].map((n) => ({ name: "send-report" as const, payload: { reportId: `t${n}` } })))),
      ]),
    );
    expect(result).toHaveLength(3);
    expect(sent).toBe(3); // the two enqueue calls and the COMMIT
  });
});
