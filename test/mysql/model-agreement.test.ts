// The shipped MySQL Prisma model (prisma/mysql/task.prisma) and the SQL migration agree: every field is written and read
// back through the generated client against a table created only by the SQL; every column has the model's native type,
// nullability and default; every index the model declares exists under the name Prisma gives it (so a Prisma migration
// neither drops nor renames one), and the store reads the times Prisma wrote as the same instants.

import { readFileSync } from "node:fs";
import * as mariadb from "mariadb";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openStore, type Store } from "../../src/index.js";
import { Prisma } from "../generated-mysql/client.js";
import { createMysqlTestDatabase, type MysqlTestDatabase } from "../support/mysql-database.js";
import { testMysqlPrisma } from "../support/mysql-prisma.js";

let database: MysqlTestDatabase;
let prisma: ReturnType<typeof testMysqlPrisma>;
let sql: mariadb.Connection;
let store: Store;

beforeAll(async () => {
  database = await createMysqlTestDatabase();
  prisma = testMysqlPrisma(database.url);
  const url = new URL(database.serverUrl);
  sql = await mariadb.createConnection({ host: url.hostname, port: Number(url.port || 3306), user: url.username || "root", password: url.password || undefined, database: database.name });
  store = openStore(database.url, { max: 1 });
});

afterAll(async () => {
  await prisma?.$disconnect();
  await sql?.end();
  await store?.close();
  await database?.drop();
});

interface ModelField {
  name: string;
  column: string;
  type: string;
  optional: boolean;
  nativeType: string | undefined;
  defaultValue: string | undefined;
  unique: boolean;
}

/** The fields and @@index lines of the shipped model, read from its text (Prisma's runtime model has no native types). */
function shippedModel(): { fields: ModelField[]; indexes: string[][] } {
  const text = readFileSync(new URL("../../prisma/mysql/task.prisma", import.meta.url), "utf8");
  const body = /model Task \{([\s\S]*?)\n\}/.exec(text)![1]!;
  const fields: ModelField[] = [];
  const indexes: string[][] = [];
  for (const line of body.split("\n").map((l) => l.trim())) {
    const index = /^@@index\(\[(.*)\]\)$/.exec(line);
    if (index) indexes.push(index[1]!.split(",").map((part) => part.trim()));
    const field = /^(\w+)\s+(\w+)(\??)\s*(.*)$/.exec(line);
    if (!field || line.startsWith("@@")) continue;
    const [, name, type, optional, attributes] = field as unknown as [string, string, string, string, string];
    fields.push({
      name,
      type,
      optional: optional === "?",
      column: /@map\("([^"]+)"\)/.exec(attributes)?.[1] ?? name,
      nativeType: /@db\.(\w+(?:\([^)]*\))?)/.exec(attributes)?.[1],
      defaultValue: /@default\(((?:[^()]|\(\))*)\)/.exec(attributes)?.[1],
      unique: /@unique\b/.test(attributes),
    });
  }
  return { fields, indexes };
}

it("writes and reads every field of Task through the generated client", async () => {
  const when = (s: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, s, 123));
  const data = {
    id: "01a1fcb3-0624-7000-85e2-d8cd4c4ef8ca",
    name: "send-report",
    queue: "reports",
    payload: { reportId: "r1", nested: { list: [1, 2] }, text: "é \u{1F600}" },
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
  expect({ ...read, updatedAt: data.updatedAt }).toEqual(data); // @updatedAt is the client's to set
  // The store reads what Prisma wrote as the same instants and values, whatever the session's time zone (+05:30 here).
  const seen = await store.findTask(data.id);
  expect(seen).toMatchObject({ ...data, updatedAt: read.updatedAt, errors: [{ attempt: 1, error: "Error: boom", at: new Date("2030-01-01T00:00:01.123Z") }] });
  const updated = await prisma.task.update({ where: { key: "report:r1" }, data: { status: "succeeded", result: Prisma.DbNull } });
  expect(updated.result).toBeNull();
});

it("fills the defaults the SQL declares when only the required fields are given", async () => {
  const created = await prisma.task.create({ data: { id: "01a1fcb3-0624-7000-85e2-d8cd4c4ef8cb", name: "n", payload: {} } });
  expect(created).toMatchObject({ queue: "default", status: "pending", priority: 0, attempts: 0, maxAttempts: 5, key: null });
  expect(created.runAt).toBeInstanceOf(Date);
});

it("has a column of the model's native type, nullability and default for every field, and no column the model lacks", async () => {
  const columns = (await sql.query(
    `SELECT COLUMN_NAME AS name, DATA_TYPE AS dataType, COLUMN_TYPE AS columnType, IS_NULLABLE AS nullable, COLUMN_DEFAULT AS def
     FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'tasks'`,
  )) as Array<{ name: string; dataType: string; columnType: string; nullable: string; def: string | null }>;
  const checks = (await sql.query(
    `SELECT CHECK_CLAUSE AS clause FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE()`,
  )) as Array<{ clause: string }>;
  const byName = new Map(columns.map((column) => [column.name, column]));
  const { fields } = shippedModel();
  expect(fields.map((f) => f.column).sort()).toEqual([...byName.keys()].sort());
  for (const field of fields) {
    const column = byName.get(field.column)!;
    const where = `column ${field.column} (field ${field.name})`;
    expect(column.nullable, `nullability of ${where}`).toBe(field.optional ? "YES" : "NO");
    if (field.type === "Json") {
      // MySQL has a JSON type; MariaDB's JSON is LONGTEXT with a json_valid() check.
      const isJson = column.dataType === "json" || (column.dataType === "longtext" && checks.some((c) => c.clause.includes(`json_valid(\`${field.column}\`)`)));
      expect(isJson, `JSON type of ${where}`).toBe(true);
    } else if (field.nativeType) {
      expect(column.columnType.toLowerCase(), `native type of ${where}`).toBe(field.nativeType.toLowerCase());
    } else {
      expect({ Int: "int", String: "varchar(191)" }[field.type], `type of ${where}`).toBe(field.type === "Int" ? column.dataType : column.columnType);
    }
    const def = column.def === null || column.def === "NULL" ? undefined : column.def.replace(/^'(.*)'$/, "$1");
    const expected = field.defaultValue === "now()" ? "current_timestamp(6)" : field.defaultValue?.replace(/^"(.*)"$/, "$1");
    expect(def?.toLowerCase(), `default of ${where}`).toBe(expected);
  }
});

it("has every index the model declares, under the name Prisma gives it, and no other", async () => {
  const rows = (await sql.query(
    `SELECT INDEX_NAME AS name, COLUMN_NAME AS col, COLLATION AS dir, NON_UNIQUE AS nonUnique
     FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'tasks' AND INDEX_NAME <> 'PRIMARY'
     ORDER BY INDEX_NAME, SEQ_IN_INDEX`,
  )) as Array<{ name: string; col: string; dir: string; nonUnique: number | bigint }>;
  const actual = new Map<string, string[]>();
  for (const row of rows) actual.set(row.name, [...(actual.get(row.name) ?? []), `${row.col}${row.dir === "D" ? " DESC" : ""}${Number(row.nonUnique) ? "" : " UNIQUE"}`]);
  const { fields, indexes } = shippedModel();
  const column = (name: string) => fields.find((f) => f.name === name)!.column;
  const expected = new Map<string, string[]>();
  for (const field of fields.filter((f) => f.unique)) expected.set(`tasks_${field.column}_key`, [`${field.column} UNIQUE`]);
  for (const index of indexes) {
    const parts = index.map((part) => {
      const [, name, sort] = /^(\w+)(?:\(sort: (\w+)\))?$/.exec(part)!;
      return { column: column(name!), desc: sort === "Desc" };
    });
    expected.set(`tasks_${parts.map((p) => p.column).join("_")}_idx`, parts.map((p) => `${p.column}${p.desc ? " DESC" : ""}`));
  }
  expect(Object.fromEntries(actual)).toEqual(Object.fromEntries(expected));
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
  await expect(prisma.task.create({ data: { id: "01a1fcb3-0624-7000-85e2-d8cd4c4ef8ce", name: "n", payload: {}, status: "paused" } })).rejects.toThrow(
    /tasks_status_check|constraint/i,
  );
});
