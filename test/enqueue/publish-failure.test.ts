// A publish that fails after COMMIT never reaches the caller: the commit stands, the failure is reported,
// and the row stays unpublished (published_at NULL) for the cleaner.

import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type TestDatabase } from "../support/database.js";
import { uniquePrefix } from "../support/broker.js";
import { extend, setupDatabase } from "./fixtures.js";

let db: TestDatabase;
let deadBroker: Server;
let port: number;

beforeAll(async () => {
  db = await setupDatabase();
  // A port that accepts TCP and then hangs up: an AMQP broker that is there but broken.
  deadBroker = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => deadBroker.listen(0, "127.0.0.1", resolve));
  port = (deadBroker.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise((resolve) => deadBroker.close(resolve));
  await db?.drop();
});

for (const [title, url] of [
  ["a broker that hangs up", () => `amqp://guest:guest@127.0.0.1:${port}`],
  ["no broker listening", () => "amqp://guest:guest@127.0.0.1:1"],
] as const) {
  it(`commits, reports and leaves the row unpublished with ${title}`, async () => {
    const failures: Array<{ ids: string[]; error: Error }> = [];
    const prisma = extend(db.url, uniquePrefix(), url(), (ids, error) => failures.push({ ids, error }));
    try {
      const task = await prisma.$transaction(async (tx) => tx.task.enqueue("send-report", { reportId: "p1" }));
      const outside = await prisma.task.enqueue("send-report", { reportId: "p2" });
      await prisma.$taskQueue.flush();
      expect(failures.flatMap((f) => f.ids).sort()).toEqual([task.id, outside.id].sort());
      expect(failures[0]!.error.message).toMatch(/broker is not connected|closed|ECONNRE|socket/i);
      for (const id of [task.id, outside.id]) {
        const row = await prisma.task.findUniqueOrThrow({ where: { id } });
        expect(row.status).toBe("pending");
        expect(row.publishedAt).toBeNull();
      }
    } finally {
      await prisma.$taskQueue.close();
      await prisma.$disconnect();
    }
  });
}

it('leaves rows unpublished with wakeups: "polling" (workers poll, the cleaner has nothing to send)', async () => {
  const prisma = extend(db.url, uniquePrefix(), "", undefined, "polling");
  try {
    const task = await prisma.task.enqueue("send-report", { reportId: "p3" });
    expect((await prisma.task.findUniqueOrThrow({ where: { id: task.id } })).publishedAt).toBeNull();
  } finally {
    await prisma.$taskQueue.close();
    await prisma.$disconnect();
  }
});

it("marks rows published at insert on PostgreSQL without amqpUrl: NOTIFY, sent with the commit, is the default", async () => {
  const prisma = extend(db.url, uniquePrefix(), "");
  try {
    const task = await prisma.task.enqueue("send-report", { reportId: "p4" });
    expect((await prisma.task.findUniqueOrThrow({ where: { id: task.id } })).publishedAt).toBeInstanceOf(Date);
  } finally {
    await prisma.$taskQueue.close();
    await prisma.$disconnect();
  }
});
