// Other client extensions applied before and after ours keep working, and so does after-commit publishing.

import { afterAll, beforeAll, expect, it } from "vitest";
import { inject } from "vitest";
import { taskQueue, silentLogger } from "../../src/index.js";
import { type TestDatabase } from "../support/database.js";
import { uniquePrefix, WakeupCounter } from "../support/broker.js";
import { testPrisma } from "../support/prisma.js";
import { setupDatabase, tasks } from "./fixtures.js";

let db: TestDatabase;
let counter: WakeupCounter;
let prefix: string;
const seen: string[] = [];

beforeAll(async () => {
  db = await setupDatabase();
  prefix = uniquePrefix();
  counter = await WakeupCounter.start(prefix);
});

afterAll(async () => {
  await counter?.close();
  await db?.drop();
});

it("works between a query extension applied before and a model/client extension applied after", async () => {
  const base = testPrisma(db.url);
  const prisma = base
    .$extends({
      name: "audit",
      query: {
        $allModels: {
          async create({ model, args, query }) {
            seen.push(`create ${model}`);
            return query(args);
          },
        },
      },
    })
    .$extends(taskQueue({ tasks, amqpUrl: inject("amqpUrl"), amqpPrefix: prefix, logger: silentLogger }))
    .$extends({
      name: "after",
      model: {
        report: {
          async open(id: string) {
            return { id, opened: true };
          },
        },
      },
      client: { $hello: () => "hello" },
    });
  try {
    const [committed, rolledBack] = [[] as string[], [] as string[]];
    await prisma.$transaction(async (tx) => {
      await tx.report.create({ data: { id: crypto.randomUUID() } });
      committed.push((await tx.task.enqueue("send-report", { reportId: "e1" })).id);
      expect(await tx.report.open("x")).toEqual({ id: "x", opened: true });
    });
    await prisma
      .$transaction(async (tx) => {
        rolledBack.push((await tx.task.enqueue("send-report", { reportId: "e2" })).id);
        throw new Error("rollback");
      })
      .catch(() => {});
    expect(prisma.$hello()).toBe("hello");
    expect(seen).toContain("create Report");
    await counter.waitFor(() => counter.counts.get(committed[0]!) === 1, "committed id");
    await prisma.$taskQueue.flush();
    await counter.settle();
    expect(counter.counts.get(rolledBack[0]!)).toBeUndefined();
    expect(counter.total).toBe(1);
  } finally {
    await prisma.$taskQueue.close();
    await prisma.$disconnect();
  }
});
