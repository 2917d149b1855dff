// The shipped Prisma model (prisma/task.prisma) and the SQL migration agree: every field is written and read back
// through the generated client against a table created only by the SQL.

import { afterAll, beforeAll, expect, it } from "vitest";
import pg from "pg";
import { type TestDatabase } from "../support/database.js";
import { testPrisma } from "../support/prisma.js";
import { Prisma } from "../generated/client.js";
import { setupDatabase } from "./fixtures.js";

let db: TestDatabase;
let prisma: ReturnType<typeof testPrisma>;
let sql: pg.Pool;

beforeAll(async () => {
  db = await setupDatabase();
  prisma = testPrisma(db.url);
  sql = new pg.Pool({ connectionString: db.url, max: 1 });
});

afterAll(async () => {
  await prisma?.$disconnect();
  await sql?.end();
  await db?.drop();
});

it("writes and reads every field of Task through the generated client", async () => {
  const when = (s: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, s, 123));
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
  const fields = Object.keys(Prisma.TaskScalarFieldEnum).sort();
  expect(Object.keys(data).sort()).toEqual(fields);
  await prisma.task.create({ data });
  const read = await prisma.task.findUniqueOrThrow({ where: { id: data.id } });
  expect({ ...read, updatedAt: data.updatedAt }).toEqual(data); // @updatedAt is the client's to set
  const updated = await prisma.task.update({ where: { key: "report:r1" }, data: { status: "succeeded", result: Prisma.DbNull } });
  expect(updated.result).toBeNull();
});

it("fills the defaults the SQL declares when only the required fields are given", async () => {
  const created = await prisma.task.create({ data: { id: "01a1fcb3-0624-7000-85e2-d8cd4c4ef8cb", name: "n", payload: {} } });
  expect(created).toMatchObject({ queue: "default", status: "pending", priority: 0, attempts: 0, maxAttempts: 5, key: null });
  expect(created.runAt).toBeInstanceOf(Date);
});

it("has a column of the matching type for every field, and no column the model lacks", async () => {
  const { rows } = await sql.query(
    "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'tasks' ORDER BY column_name",
  );
  const columns = new Map(rows.map((r) => [r.column_name as string, r.data_type as string]));
  const model = (prisma as unknown as { _runtimeDataModel: { models: Record<string, { fields: Array<{ name: string; type: string; dbName?: string }> }> } })
    ._runtimeDataModel.models.Task!;
  const expected: Record<string, string[]> = {
    String: ["text", "uuid"],
    Json: ["jsonb"],
    Int: ["integer"],
    DateTime: ["timestamp with time zone"],
  };
  for (const field of model.fields) {
    const column = field.dbName ?? field.name;
    expect(columns.has(column), `column ${column} for field ${field.name}`).toBe(true);
    expect(expected[field.type], `type of ${field.name}`).toContain(columns.get(column));
  }
  expect(model.fields.length).toBe(columns.size);
});

it("accepts null in every optional field", async () => {
  const row = await prisma.task.create({
    data: {
      id: "01a1fcb3-0624-7000-85e2-d8cd4c4ef8cd",
      name: "n",
      payload: {},
      leaseOwner: null,
      leaseExpiresAt: null,
      lastError: null,
      result: Prisma.DbNull,
      key: null,
      finishedAt: null,
      publishedAt: null,
      finishedBy: null,
      errors: Prisma.DbNull,
    },
  });
  expect(row).toMatchObject({ leaseOwner: null, leaseExpiresAt: null, lastError: null, result: null, key: null, finishedAt: null, publishedAt: null, finishedBy: null, errors: null });
});

it("rejects a status outside the lifecycle", async () => {
  await expect(prisma.task.create({ data: { id: "01a1fcb3-0624-7000-85e2-d8cd4c4ef8cc", name: "n", payload: {}, status: "paused" } })).rejects.toThrow(
    /tasks_status_check|check constraint/i,
  );
});
