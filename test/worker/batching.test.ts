// Claims and completions are batched: 200 tasks woken together are claimed and completed in a handful of statements.

import { afterAll, beforeAll, expect, it } from "vitest";
import { z } from "zod";
import { pgDb, type PgDb } from "../../src/db/pg-db.js";
import type { Db, TransactionalDb } from "../../src/db/driver.js";
import { defineTasks } from "../../src/index.js";
import { createWorker, type Worker } from "../../src/worker/create-worker.js";
import { waitUntil } from "../support/wait.js";
import { recordingLogger, WorkerTestBed } from "./harness.js";

const tasks = defineTasks({ noop: { payload: z.object({ n: z.number() }), handler: async ({ n }) => n } });

let bed: WorkerTestBed;
let prisma: ReturnType<WorkerTestBed["prisma"]>;
let pool: PgDb;
let worker: Worker;
const statements: string[] = [];

/** The real pg database, noting the first line of every statement the worker sends. */
function countingDb(inner: PgDb): TransactionalDb {
  const note = (text: string) => statements.push(text);
  return {
    query: (text, values) => (note(text), inner.query(text, values)),
    transaction: (fn) => inner.transaction((tx: Db) => fn({ query: (text, values) => (note(text), tx.query(text, values)) })),
  };
}

beforeAll(async () => {
  bed = await WorkerTestBed.create();
  prisma = bed.prisma(tasks);
  pool = pgDb(bed.url, { max: 4 });
  worker = createWorker({ tasks, db: countingDb(pool), amqpUrl: bed.amqpUrl, amqpPrefix: bed.prefix, concurrency: 200, logger: recordingLogger() });
  await worker.start();
});

afterAll(async () => {
  await worker?.stop();
  await pool?.close();
  await prisma?.$taskQueue.close();
  await prisma?.$disconnect();
  await bed?.close();
});

it("claims and completes 200 tasks woken by one message in a few statements each", async () => {
  statements.length = 0;
  const created = await prisma.task.enqueueMany(Array.from({ length: 200 }, (_, n) => ({ name: "noop" as const, payload: { n } })));
  const ids = created.map((task) => task.id);
  await waitUntil(
    async () => (await bed.sql.query("SELECT count(*)::int AS n FROM tasks WHERE id = ANY($1) AND status = 'succeeded'", [ids])).rows[0].n === 200,
    "all 200 tasks to succeed",
    30_000,
  );
  const kind = (s: string) => (/SET status = 'running'/.test(s) ? "claim" : /SET status = 'succeeded'/.test(s) ? "complete" : s.slice(0, 40));
  const byKind = new Map<string, number>();
  for (const statement of statements) byKind.set(kind(statement), (byKind.get(kind(statement)) ?? 0) + 1);
  const claims = byKind.get("claim") ?? 0;
  const completions = byKind.get("complete") ?? 0;
  expect(claims).toBeGreaterThan(0);
  expect(completions).toBeGreaterThan(0);
  console.info("statements for 200 tasks:", JSON.stringify([...byKind]));
  expect(claims, JSON.stringify([...byKind])).toBeLessThanOrEqual(5);
  expect(completions, JSON.stringify([...byKind])).toBeLessThanOrEqual(20);
  expect((await bed.sql.query("SELECT result FROM tasks WHERE id = $1", [ids[7]])).rows[0].result).toBe(7);
});
