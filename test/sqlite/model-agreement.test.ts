// The shipped SQLite model (prisma/sqlite/task.prisma) and its SQL migration agree: every field is written and read
// back through the generated client against tables created only by the SQL, and a task Prisma wrote is one the
// queue's SQL reads and claims (the times agree on their format).

import Database from "better-sqlite3";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openStore, type Store } from "../../src/index.js";
import { Prisma } from "../generated-sqlite/client.js";
import { createSqliteDatabase, sqlitePrisma, type SqliteTestDatabase } from "../support/sqlite.js";

let db: SqliteTestDatabase;
let prisma: ReturnType<typeof sqlitePrisma>;
let store: Store;

beforeAll(async () => {
  db = await createSqliteDatabase();
  prisma = sqlitePrisma(db.url);
  store = openStore(db.url);
});

afterAll(async () => {
  await store?.close();
  await prisma?.$disconnect();
  await db?.drop();
});

const when = (s: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, s, 123));

it("writes and reads every field of Task through the generated client", async () => {
  const data = {
    id: "01a1fcb3-0624-7000-85e2-d8cd4c4ef8ca",
    name: "send-report",
    queue: "reports",
    payload: { reportId: "r1", nested: { list: [1, 2] } },
    status: "running",
    priority: -3,
    runAt: when(1),
    attempts: 2,
    maxAttempts: 7,
    leaseOwner: "host:1:abc",
    leaseExpiresAt: when(2),
    lastError: "Error: boom\n    at x",
    result: { ok: true },
    key: "report:r1",
    createdAt: when(3),
    updatedAt: when(4),
    finishedAt: when(5),
    publishedAt: when(6),
    finishedBy: "host:1:abc",
    errors: [{ attempt: 1, error: "Error: boom", at: "2030-01-01T00:00:01.123Z" }],
  };
  expect(Object.keys(data).sort()).toEqual(Object.keys(Prisma.TaskScalarFieldEnum).sort());
  await prisma.task.create({ data });
  const read = await prisma.task.findUniqueOrThrow({ where: { id: data.id } });
  expect({ ...read, updatedAt: data.updatedAt }).toEqual(data);
  // The queue's own SQL reads the row Prisma wrote, field for field.
  const seen = await store.findTask(data.id);
  expect(seen).toMatchObject({ ...data, status: "running", leaseExpiresAt: data.leaseExpiresAt, errors: [{ attempt: 1, error: "Error: boom", at: new Date("2030-01-01T00:00:01.123Z") }] });
});

it("claims a task Prisma wrote: its times compare with the queue's clock", async () => {
  const id = "01a1fcb3-0624-7000-85e2-d8cd4c4ef8cf";
  await prisma.task.create({ data: { id, name: "n", payload: { x: 1 }, runAt: new Date(Date.now() - 1000) } });
  await prisma.task.create({ data: { id: "01a1fcb3-0624-7000-85e2-d8cd4c4ef8d0", name: "n", payload: {}, runAt: new Date(Date.now() + 60_000) } });
  const claimed = await store.claimDue(10, { owner: "model-test", leaseMs: 1000, names: ["n"], queues: ["default"] });
  expect(claimed.map((task) => task.id)).toEqual([id]);
  expect(claimed[0]!.payload).toEqual({ x: 1 });
});

it("fills the defaults the SQL declares when only the required fields are given", async () => {
  const created = await prisma.task.create({ data: { id: "01a1fcb3-0624-7000-85e2-d8cd4c4ef8cb", name: "n", payload: {} } });
  expect(created).toMatchObject({ queue: "default", status: "pending", priority: 0, attempts: 0, maxAttempts: 5, key: null });
  expect(created.runAt).toBeInstanceOf(Date);
});

it("has a column of the matching type for every field of Task and TaskLeader, and no column the models lack", () => {
  const raw = new Database(db.path, { readonly: true });
  try {
    const models = (prisma as unknown as { _runtimeDataModel: { models: Record<string, { dbName: string; fields: Array<{ name: string; type: string; dbName?: string }> }> } })
      ._runtimeDataModel.models;
    const expected: Record<string, string> = { String: "TEXT", Json: "JSONB", Int: "INTEGER", DateTime: "DATETIME" };
    for (const modelName of ["Task", "TaskLeader"]) {
      const model = models[modelName]!;
      const columns = new Map((raw.prepare(`SELECT name, type FROM pragma_table_info(?)`).all(model.dbName) as Array<{ name: string; type: string }>).map((c) => [c.name, c.type]));
      for (const field of model.fields) {
        const column = field.dbName ?? field.name;
        expect(columns.get(column), `${modelName}.${field.name} → ${column}`).toBe(expected[field.type]);
      }
      expect(model.fields.length, modelName).toBe(columns.size);
    }
  } finally {
    raw.close();
  }
});

it("accepts null in every optional field, and rejects a status outside the lifecycle", async () => {
  const row = await prisma.task.create({
    data: { id: "01a1fcb3-0624-7000-85e2-d8cd4c4ef8cd", name: "n", payload: {}, leaseOwner: null, leaseExpiresAt: null, lastError: null, result: Prisma.DbNull, key: null, finishedAt: null, publishedAt: null, finishedBy: null, errors: Prisma.DbNull },
  });
  expect(row).toMatchObject({ leaseOwner: null, leaseExpiresAt: null, lastError: null, result: null, key: null, finishedAt: null, publishedAt: null, finishedBy: null, errors: null });
  await expect(prisma.task.create({ data: { id: "01a1fcb3-0624-7000-85e2-d8cd4c4ef8ce", name: "n", payload: {}, status: "paused" } })).rejects.toThrow(/CHECK constraint/i);
});
