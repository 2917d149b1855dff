// A task row exists iff its transaction committed, and the broker receives each committed id exactly once and nothing
// for rolled-back work, across every way of running a transaction.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { type TestDatabase } from "../support/database.js";
import { uniquePrefix, WakeupCounter } from "../support/broker.js";
import { waitUntil } from "../support/wait.js";
import { postgresStoreDialect } from "../conformance/store/dialects.js";
import { extend, setupDatabase, type Extended } from "./fixtures.js";

let db: TestDatabase;
let prisma: Extended;
let counter: WakeupCounter;
let sql: pg.Pool;

beforeAll(async () => {
  db = await setupDatabase();
  const prefix = uniquePrefix();
  counter = await WakeupCounter.start(prefix, ["default", "images"]);
  prisma = extend(db.url, prefix);
  sql = new pg.Pool({ connectionString: db.url, max: 2 });
});

afterAll(async () => {
  await prisma?.$taskQueue.close();
  await prisma?.$disconnect();
  await counter?.close();
  await sql?.end();
  await db?.drop();
});

async function rowExists(id: string): Promise<boolean> {
  return (await sql.query("SELECT 1 FROM tasks WHERE id = $1", [id])).rowCount === 1;
}

async function expectPublishedOnce(id: string) {
  await counter.waitFor(() => counter.counts.get(id) === 1, `one wake-up for ${id}`);
  await counter.settle();
  expect(counter.counts.get(id)).toBe(1);
}

async function expectNeverPublished(ids: string[]) {
  await prisma.$taskQueue.flush();
  await counter.settle();
  for (const id of ids) expect(counter.counts.get(id), `wake-up for rolled-back ${id}`).toBeUndefined();
}

class Rollback extends Error {}

describe("interactive transaction", () => {
  it("publishes the id once after COMMIT, with the business row", async () => {
    const { task, reportId } = await prisma.$transaction(async (tx) => {
      const report = await tx.report.create({ data: { id: crypto.randomUUID() } });
      const task = await tx.task.enqueue("send-report", { reportId: report.id });
      expect(counter.counts.get(task.id), "no wake-up before commit").toBeUndefined();
      return { task, reportId: report.id };
    });
    expect(task).toMatchObject({ name: "send-report", queue: "default", status: "pending", created: true, key: null });
    expect(await rowExists(task.id)).toBe(true);
    expect((await sql.query("SELECT 1 FROM reports WHERE id = $1", [reportId])).rowCount).toBe(1);
    await expectPublishedOnce(task.id);
  });

  it("publishes wake-ups as transient messages (a lost one is re-sent by the cleaner)", async () => {
    const before = counter.bodies.length;
    const task = await prisma.$transaction(async (tx) => tx.task.enqueue("send-report", { reportId: crypto.randomUUID() }));
    await expectPublishedOnce(task.id);
    const modes = counter.deliveryModes.slice(before);
    expect(modes.length).toBeGreaterThan(0);
    for (const mode of modes) expect(mode).not.toBe(2);
  });

  it("writes and publishes nothing when the callback throws", async () => {
    let id = "";
    await expect(
      prisma.$transaction(async (tx) => {
        id = (await tx.task.enqueue("send-report", { reportId: "r1" })).id;
        throw new Rollback("business rule failed");
      }),
    ).rejects.toBeInstanceOf(Rollback);
    expect(await rowExists(id)).toBe(false);
    await expectNeverPublished([id]);
  });

  it("writes and publishes nothing when COMMIT itself fails", async () => {
    let id = "";
    await expect(
      prisma.$transaction(async (tx) => {
        id = (await tx.task.enqueue("send-report", { reportId: "r2" })).id;
        await tx.$executeRawUnsafe("INSERT INTO commit_guards (id) VALUES (1), (1)"); // deferred: fails at COMMIT
      }),
    ).rejects.toThrow(/UniqueConstraintViolation|commit_guards_unique/);
    expect(id).not.toBe("");
    expect(await rowExists(id)).toBe(false);
    await expectNeverPublished([id]);
  });

  it("routes each task to its queue and publishes one message per queue for a transaction", async () => {
    const before = counter.bodies.length;
    const [a, b, c] = await prisma.$transaction(async (tx) => [
      await tx.task.enqueue("send-report", { reportId: "q1" }),
      await tx.task.enqueue("resize-image", { url: "https://example.com/a.png", width: 10 }),
      await tx.task.enqueue("send-report", { reportId: "q2" }),
    ]);
    expect(b.queue).toBe("images");
    for (const task of [a, b, c]) await expectPublishedOnce(task.id);
    expect(counter.bodies.length - before).toBe(2);
  });
});

describe("nested tx.$transaction", () => {
  it("publishes inner and outer ids once, after the outer COMMIT", async () => {
    const ids = await prisma.$transaction(async (tx) => {
      const outer = await tx.task.enqueue("send-report", { reportId: "n1" });
      const inner = await tx.$transaction(async (tx2) => tx2.task.enqueue("send-report", { reportId: "n2" }));
      await counter.settle(100);
      expect(counter.counts.get(inner.id), "inner commit is not the real commit").toBeUndefined();
      return [outer.id, inner.id];
    });
    for (const id of ids) await expectPublishedOnce(id);
  });

  it("drops the ids of a rolled-back inner transaction and keeps the outer ones", async () => {
    let innerId = "";
    const outerId = await prisma.$transaction(async (tx) => {
      const outer = await tx.task.enqueue("send-report", { reportId: "n3" });
      await tx
        .$transaction(async (tx2) => {
          innerId = (await tx2.task.enqueue("send-report", { reportId: "n4" })).id;
          throw new Rollback("inner fails");
        })
        .catch((error) => expect(error).toBeInstanceOf(Rollback));
      return outer.id;
    });
    expect(await rowExists(outerId)).toBe(true);
    expect(await rowExists(innerId)).toBe(false);
    await expectPublishedOnce(outerId);
    await expectNeverPublished([innerId]);
  });

  it("publishes nothing when the outer transaction rolls back after the inner one committed", async () => {
    const ids: string[] = [];
    await expect(
      prisma.$transaction(async (tx) => {
        ids.push((await tx.task.enqueue("send-report", { reportId: "n5" })).id);
        await tx.$transaction(async (tx2) => {
          ids.push((await tx2.task.enqueue("send-report", { reportId: "n6" })).id);
        });
        throw new Rollback("outer fails");
      }),
    ).rejects.toBeInstanceOf(Rollback);
    for (const id of ids) expect(await rowExists(id)).toBe(false);
    await expectNeverPublished(ids);
  });
});

describe("batch $transaction([...])", () => {
  it("publishes the enqueued ids after the batch commits and returns tasks in place", async () => {
    const [task, report, many] = await prisma.$transaction([
      prisma.task.enqueue("send-report", { reportId: "b1" }),
      prisma.report.create({ data: { id: crypto.randomUUID() } }),
      prisma.task.enqueueMany([
        { name: "send-report", payload: { reportId: "b2" } },
        { name: "resize-image", payload: { url: "https://example.com/b.png", width: 5 } },
      ]),
    ]);
    expect(task.name).toBe("send-report");
    expect(report.status).toBe("pending");
    expect(many.map((t) => t.name)).toEqual(["send-report", "resize-image"]);
    for (const id of [task.id, ...many.map((t) => t.id)]) {
      expect(await rowExists(id)).toBe(true);
      await expectPublishedOnce(id);
    }
  });

  it("writes and publishes nothing when a statement of the batch fails", async () => {
    const reportId = crypto.randomUUID();
    await prisma.report.create({ data: { id: reportId } });
    const before = counter.total;
    const enqueue = prisma.task.enqueue("send-report", { reportId: "b3" }, { key: `batch-fail-${reportId}` });
    await expect(prisma.$transaction([enqueue, prisma.report.create({ data: { id: reportId } })])).rejects.toThrow();
    expect((await sql.query("SELECT 1 FROM tasks WHERE key = $1", [`batch-fail-${reportId}`])).rowCount).toBe(0);
    await prisma.$taskQueue.flush();
    await counter.settle();
    expect(counter.total).toBe(before);
  });
});

describe("outside any transaction", () => {
  it("inserts and publishes at once", async () => {
    const task = await prisma.task.enqueue("send-report", { reportId: "o1" });
    expect(await rowExists(task.id)).toBe(true);
    await expectPublishedOnce(task.id);
  });

  it("marks a due task published at insert (a failed publish clears it), and leaves a delayed one unpublished", async () => {
    const due = await prisma.task.enqueue("send-report", { reportId: "o2" });
    const delayed = await prisma.task.enqueue("send-report", { reportId: "o3" }, { delayMs: 60_000 });
    await prisma.$taskQueue.flush();
    expect((await prisma.task.findUniqueOrThrow({ where: { id: due.id } })).publishedAt).toBeInstanceOf(Date);
    expect((await prisma.task.findUniqueOrThrow({ where: { id: delayed.id } })).publishedAt).toBeNull();
  });
});

describe("concurrency", () => {
  it("25 concurrent transactions each publish exactly their own committed ids", async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 25 }, (_, n) =>
        // Waits for a connection and runs as long as a loaded machine needs: only the planned rollbacks may fail.
        prisma.$transaction(
          async (tx) => {
            const tasks = [];
            for (let k = 0; k <= n % 3; k++) tasks.push(await tx.task.enqueue("send-report", { reportId: `c${n}-${k}` }));
            if (n % 4 === 0) throw Object.assign(new Rollback("planned"), { ids: tasks.map((t) => t.id) });
            return tasks.map((t) => t.id);
          },
          { maxWait: 30_000, timeout: 30_000 },
        ),
      ),
    );
    for (const result of results) if (result.status === "rejected") expect(result.reason).toBeInstanceOf(Rollback);
    const committed = results.flatMap((r) => (r.status === "fulfilled" ? r.value : []));
    const rolledBack = results.flatMap((r) => (r.status === "rejected" ? (r.reason as { ids: string[] }).ids : []));
    // Transactions n = 0…24 enqueue n % 3 + 1 tasks each; those with n % 4 = 0 roll back.
    expect(committed).toHaveLength(36);
    expect(rolledBack).toHaveLength(13);
    await counter.waitFor(() => committed.every((id) => counter.counts.get(id) === 1), "every committed id once");
    await expectNeverPublished(rolledBack);
    for (const id of committed) expect(counter.counts.get(id)).toBe(1);
    const rows = await sql.query<{ id: string }>("SELECT id FROM tasks WHERE id = ANY($1::uuid[])", [[...committed, ...rolledBack]]);
    expect(rows.rows.map((r) => r.id).sort()).toEqual([...committed].sort());
  });
});

describe("delays and keys", () => {
  it("sends a delayed task's wake-up as due later, with the time left, and leaves its row unpublished for the cleaner", async () => {
    const task = await prisma.$transaction(async (tx) => tx.task.enqueue("send-report", { reportId: "d1" }, { delayMs: 60_000 }));
    expect(task.runAt.getTime()).toBeGreaterThan(Date.now() + 50_000);
    await counter.waitFor(() => counter.later.has(task.id), `the due-later wake-up of ${task.id}`);
    const [dueInMs, ...more] = counter.later.get(task.id)!;
    expect(more).toEqual([]);
    expect(dueInMs).toBeGreaterThan(55_000);
    expect(dueInMs).toBeLessThanOrEqual(60_000);
    await expectNeverPublished([task.id]);
    expect((await sql.query<{ published_at: Date | null }>("SELECT published_at FROM tasks WHERE id = $1", [task.id])).rows[0]?.published_at).toBeNull();
  });

  it("returns the existing task for a repeated key, writes one row and publishes once", async () => {
    const key = `report:${crypto.randomUUID()}`;
    const first = await prisma.$transaction(async (tx) => tx.task.enqueue("send-report", { reportId: "k1" }, { key }));
    const second = await prisma.$transaction(async (tx) => tx.task.enqueue("send-report", { reportId: "k1" }, { key }));
    const [inMany, twin] = await prisma.task.enqueueMany([
      { name: "send-report", payload: { reportId: "k1" }, options: { key } },
      { name: "send-report", payload: { reportId: "k2" }, options: { key: `${key}:b` } },
    ]);
    const again = await prisma.task.enqueue("send-report", { reportId: "k2" }, { key: `${key}:b` });
    expect(first.created).toBe(true);
    expect(second).toMatchObject({ id: first.id, created: false, key });
    expect(inMany).toMatchObject({ id: first.id, created: false });
    expect(again).toMatchObject({ id: twin!.id, created: false });
    expect((await sql.query<{ n: number }>("SELECT count(*)::int AS n FROM tasks WHERE key LIKE $1", [`${key}%`])).rows[0]!.n).toBe(2);
    await expectPublishedOnce(first.id);
    await expectPublishedOnce(twin!.id);
  });

  it("dedupes the same key twice within one enqueueMany", async () => {
    const key = `twin:${crypto.randomUUID()}`;
    const [a, b] = await prisma.task.enqueueMany([
      { name: "send-report", payload: { reportId: "t1" }, options: { key } },
      { name: "send-report", payload: { reportId: "t2" }, options: { key } },
    ]);
    expect(a!.created).toBe(true);
    expect(b).toMatchObject({ id: a!.id, created: false });
    await expectPublishedOnce(a!.id);
  });

  it("finds the winner when two transactions race on one key", async () => {
    const key = `race:${crypto.randomUUID()}`;
    let releaseFirst!: () => void;
    const firstHolds = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstInserted!: () => void;
    const inserted = new Promise<void>((resolve) => (firstInserted = resolve));
    const first = prisma.$transaction(async (tx) => {
      const task = await tx.task.enqueue("send-report", { reportId: "r" }, { key });
      firstInserted();
      await firstHolds;
      return task;
    });
    await inserted;
    const second = prisma.$transaction(async (tx) => tx.task.enqueue("send-report", { reportId: "r" }, { key }));
    const raw = await postgresStoreDialect.raw(db.url);
    try {
      await waitUntil(() => raw.writerBlocked(), "the second insert to wait for the first transaction's row (pg_locks)");
    } finally {
      await raw.close();
    }
    releaseFirst();
    const [a, b] = await Promise.all([first, second]);
    expect(b).toMatchObject({ id: a.id, created: false });
    await expectPublishedOnce(a.id);
  });
});
