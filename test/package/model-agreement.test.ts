// Each dialect's shipped Prisma model and its SQL migrations agree: fields written and read back, read and claimed by
// the store, defaults, nulls, the status check, and every column (and MySQL's index names) as the model declares.

import { readFileSync } from "node:fs";
import Database from "better-sqlite3";
import type * as mariadb from "mariadb";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../src/index.js";
import { Prisma as PgPrisma } from "../generated/client.js";
import { Prisma as MysqlPrisma } from "../generated-mysql/client.js";
import { Prisma as SqlitePrisma } from "../generated-sqlite/client.js";
import { mysqlStoreDialect, postgresStoreDialect, sqliteStoreDialect, type StoreDialect } from "../conformance/store/dialects.js";
import { mysqlConnection } from "../support/mysql-database.js";

/** The part of each dialect's generated client the cases use (typed loosely: each dialect has its own). */
interface ModelClient {
  task: {
    create(args: { data: Record<string, unknown> }): Promise<Record<string, unknown>>;
    findUniqueOrThrow(args: { where: { id: string } }): Promise<Record<string, unknown>>;
    update(args: { where: { key: string }; data: Record<string, unknown> }): Promise<Record<string, unknown>>;
  };
  taskSchedule: {
    create(args: { data: Record<string, unknown> }): Promise<Record<string, unknown>>;
    findUniqueOrThrow(args: { where: { schedule: string } }): Promise<Record<string, unknown>>;
  };
  taskScheduleSlot: { create(args: { data: Record<string, unknown> }): Promise<Record<string, unknown>> };
  $disconnect(): Promise<void>;
}

/** The models every dialect ships: the task table and the schedule tables beside it. */
const MODELS = ["Task", "TaskSchedule", "TaskScheduleSlot"];

type RuntimeModel = { dbName: string | null; fields: Array<{ name: string; type: string; dbName?: string | null }> };
const runtimeModels = (client: ModelClient) => (client as unknown as { _runtimeDataModel: { models: Record<string, RuntimeModel> } })._runtimeDataModel.models;

interface ModelDialect {
  store: StoreDialect;
  prisma: { DbNull: unknown; TaskScalarFieldEnum: Record<string, string> };
  /** What the database says when a status is outside the lifecycle. */
  statusRefused: RegExp;
  /** Checks every column against the model's fields, in the dialect's own catalogue. */
  columns(url: string, client: ModelClient): Promise<void>;
  /** Checks the indexes against the model's, where Prisma names them (MySQL). */
  indexes?(url: string): Promise<void>;
}

const postgres: ModelDialect = {
  store: postgresStoreDialect,
  prisma: PgPrisma,
  statusRefused: /tasks_status_check|check constraint/i,
  async columns(url, client) {
    const sql = new pg.Client({ connectionString: url });
    await sql.connect();
    try {
      const types: Record<string, string[]> = { String: ["text", "uuid"], Json: ["jsonb"], Int: ["integer"], DateTime: ["timestamp with time zone"] };
      for (const modelName of MODELS) {
        const model = runtimeModels(client)[modelName]!;
        const { rows } = await sql.query<{ column_name: string; data_type: string }>(
          "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = $1 ORDER BY column_name",
          [model.dbName],
        );
        const columns = new Map(rows.map((r) => [r.column_name, r.data_type]));
        for (const field of model.fields) expect(types[field.type], `type of ${modelName}.${field.name}`).toContain(columns.get(field.dbName ?? field.name));
        expect(model.fields.length, modelName).toBe(columns.size);
      }
    } finally {
      await sql.end();
    }
  },
};

const sqlite: ModelDialect = {
  store: sqliteStoreDialect,
  prisma: SqlitePrisma,
  statusRefused: /CHECK constraint/i,
  async columns(url, client) {
    const raw = new Database(url.replace(/^file:/, ""), { readonly: true });
    try {
      const types: Record<string, string> = { String: "TEXT", Json: "JSONB", Int: "INTEGER", DateTime: "DATETIME" };
      for (const modelName of [...MODELS, "TaskLeader"]) {
        const model = runtimeModels(client)[modelName]!;
        const columns = new Map(
          (raw.prepare(`SELECT name, type FROM pragma_table_info(?)`).all(model.dbName) as Array<{ name: string; type: string }>).map((c) => [c.name, c.type]),
        );
        for (const field of model.fields) expect(columns.get(field.dbName ?? field.name), `${modelName}.${field.name}`).toBe(types[field.type]);
        expect(model.fields.length, modelName).toBe(columns.size);
      }
    } finally {
      raw.close();
    }
  },
};

interface MysqlField {
  name: string;
  column: string;
  type: string;
  optional: boolean;
  nativeType: string | undefined;
  defaultValue: string | undefined;
  unique: boolean;
}

/** The fields, @@index lines and table of a shipped MySQL model, read from its text (Prisma's runtime model has no native types). */
function shippedMysqlModel(name = "Task"): { fields: MysqlField[]; indexes: string[][]; table: string } {
  const text = readFileSync(new URL("../../prisma/mysql/task.prisma", import.meta.url), "utf8");
  const body = new RegExp(`model ${name} \\{([\\s\\S]*?)\\n\\}`).exec(text)![1]!;
  const table = /@@map\("([^"]+)"\)/.exec(body)![1]!;
  const fields: MysqlField[] = [];
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
  return { fields, indexes, table };
}

/** Runs `fn` with a plain connection to the MySQL database of `url`. */
async function onMysql<T>(url: string, fn: (sql: mariadb.Connection) => Promise<T>): Promise<T> {
  const sql = await mysqlConnection(url, new URL(url).pathname.slice(1));
  try {
    return await fn(sql);
  } finally {
    await sql.end();
  }
}

const mysql: ModelDialect = {
  store: mysqlStoreDialect,
  prisma: MysqlPrisma,
  statusRefused: /tasks_status_check|constraint/i,
  columns: (url) =>
    onMysql(url, async (sql) => {
      const checks = await sql.query<Array<{ clause: string }>>(
        `SELECT CHECK_CLAUSE AS clause FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE()`,
      );
      for (const modelName of MODELS) {
        const { fields, table } = shippedMysqlModel(modelName);
        const columns = await sql.query<Array<{ name: string; dataType: string; columnType: string; nullable: string; def: string | null }>>(
          `SELECT COLUMN_NAME AS name, DATA_TYPE AS dataType, COLUMN_TYPE AS columnType, IS_NULLABLE AS nullable, COLUMN_DEFAULT AS def
           FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?`,
          [table],
        );
        const byName = new Map(columns.map((column) => [column.name, column]));
        expect(fields.map((f) => f.column).sort(), modelName).toEqual([...byName.keys()].sort());
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
          const precision = /^DateTime\((\d)\)$/.exec(field.nativeType ?? "")?.[1] ?? "6";
          const expected = field.defaultValue === "now()" ? `current_timestamp(${precision})` : field.defaultValue?.replace(/^"(.*)"$/, "$1");
          expect(def?.toLowerCase(), `default of ${where}`).toBe(expected);
        }
      }
    }),
  indexes: (url) =>
    onMysql(url, async (sql) => {
      for (const modelName of MODELS) {
        const { fields, indexes, table } = shippedMysqlModel(modelName);
        const rows = await sql.query<Array<{ name: string; col: string; dir: string; nonUnique: number | bigint }>>(
          `SELECT INDEX_NAME AS name, COLUMN_NAME AS col, COLLATION AS dir, NON_UNIQUE AS nonUnique
           FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND INDEX_NAME <> 'PRIMARY'
           ORDER BY INDEX_NAME, SEQ_IN_INDEX`,
          [table],
        );
        const actual = new Map<string, string[]>();
        for (const row of rows)
          actual.set(row.name, [...(actual.get(row.name) ?? []), `${row.col}${row.dir === "D" ? " DESC" : ""}${Number(row.nonUnique) ? "" : " UNIQUE"}`]);
        const column = (name: string) => fields.find((f) => f.name === name)!.column;
        const expected = new Map<string, string[]>();
        for (const field of fields.filter((f) => f.unique)) expected.set(`${table}_${field.column}_key`, [`${field.column} UNIQUE`]);
        for (const index of indexes) {
          const parts = index.map((part) => {
            const [, name, sort] = /^(\w+)(?:\(sort: (\w+)\))?$/.exec(part)!;
            return { column: column(name!), desc: sort === "Desc" };
          });
          expected.set(
            `${table}_${parts.map((p) => p.column).join("_")}_idx`,
            parts.map((p) => `${p.column}${p.desc ? " DESC" : ""}`),
          );
        }
        expect(Object.fromEntries(actual), modelName).toEqual(Object.fromEntries(expected));
      }
    }),
};

const when = (s: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, s, 123));

describe.each([postgres, sqlite, mysql])("the shipped model on $store.name", (dialect) => {
  let database: { url: string; drop(): Promise<void> };
  let client: ModelClient;
  let store: Store;

  beforeAll(async () => {
    database = await dialect.store.createDatabase();
    client = dialect.store.prismaClient(database.url) as unknown as ModelClient;
    store = openStore(database.url, { max: 1 });
  });

  afterAll(async () => {
    await client?.$disconnect();
    await store?.close();
    await database?.drop();
  });

  it("writes and reads every field of Task through the generated client, and the store reads the same values and instants", async () => {
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
      concurrencyKey: "acct-1",
      traceContext: '{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","tracestate":"ptq=1"}',
      errors: [{ attempt: 1, error: "Error: boom", at: "2030-01-01T00:00:01.123Z" }],
      waitingFor: "shipped",
      parentId: "01a1fcb3-0624-7000-85e2-d8cd4c4ef8ce",
    };
    expect(Object.keys(data).sort()).toEqual(Object.keys(dialect.prisma.TaskScalarFieldEnum).sort());
    await client.task.create({ data });
    const read = await client.task.findUniqueOrThrow({ where: { id: data.id } });
    expect({ ...read, updatedAt: data.updatedAt }).toEqual(data); // @updatedAt is the client's to set
    const seen = await store.findTask(data.id);
    // waiting_for is the workflows' own column: the store's task rows do not carry it.
    const { waitingFor: _waitingFor, ...row } = data;
    expect(seen).toMatchObject({ ...row, updatedAt: read.updatedAt, errors: [{ attempt: 1, error: "Error: boom", at: new Date("2030-01-01T00:00:01.123Z") }] });
    const updated = await client.task.update({ where: { key: "report:r1" }, data: { status: "succeeded", result: dialect.prisma.DbNull } });
    expect(updated.result).toBeNull();
  });

  it("a task Prisma wrote is claimed by the store: its times compare with the database clock", async () => {
    const id = "01a1fcb3-0624-7000-85e2-d8cd4c4ef8cf";
    await client.task.create({ data: { id, name: "n", payload: { x: 1 }, runAt: new Date(Date.now() - 1000) } });
    await client.task.create({ data: { id: "01a1fcb3-0624-7000-85e2-d8cd4c4ef8d0", name: "n", payload: {}, runAt: new Date(Date.now() + 60_000) } });
    const claimed = await store.claimDue(10, { owner: "model-test", leaseMs: 1000, names: ["n"], queues: ["default"] });
    expect(claimed.map((task) => task.id)).toEqual([id]);
    expect(claimed[0]!.payload).toEqual({ x: 1 });
  });

  it("fills the defaults the SQL declares when only the required fields are given", async () => {
    const created = await client.task.create({ data: { id: "01a1fcb3-0624-7000-85e2-d8cd4c4ef8cb", name: "n", payload: {} } });
    expect(created).toMatchObject({ queue: "default", status: "pending", priority: 0, attempts: 0, maxAttempts: 5, key: null });
    expect(created.runAt).toBeInstanceOf(Date);
  });

  it("accepts null in every optional field, and refuses a status outside the lifecycle", async () => {
    const nulls = {
      leaseOwner: null,
      leaseExpiresAt: null,
      lastError: null,
      key: null,
      finishedAt: null,
      publishedAt: null,
      finishedBy: null,
      concurrencyKey: null,
      traceContext: null,
      waitingFor: null,
    };
    const row = await client.task.create({
      data: { id: "01a1fcb3-0624-7000-85e2-d8cd4c4ef8cd", name: "n", payload: {}, ...nulls, result: dialect.prisma.DbNull, errors: dialect.prisma.DbNull },
    });
    expect(row).toMatchObject({ ...nulls, result: null, errors: null });
    await expect(client.task.create({ data: { id: "01a1fcb3-0624-7000-85e2-d8cd4c4ef8ce", name: "n", payload: {}, status: "paused" } })).rejects.toThrow(
      dialect.statusRefused,
    );
  });

  it("a schedule and a slot Prisma wrote are the store's: it reads the schedule, refuses that slot, and advances past it", async () => {
    const schedule = { schedule: "send-report#daily", taskName: "send-report", cron: "0 6 * * *", timeZone: "Europe/Paris", lastSlot: when(7) };
    const written = await client.taskSchedule.create({ data: schedule });
    expect(written).toMatchObject(schedule);
    expect(await store.listSchedules()).toEqual([{ ...schedule, updatedAt: written.updatedAt }]);
    const slot = await client.taskScheduleSlot.create({ data: { schedule: schedule.schedule, slot: when(8), taskId: "01a1fcb3-0624-7000-85e2-d8cd4c4ef8d1" } });
    expect(slot.firedAt).toBeInstanceOf(Date);
    expect(await store.claimScheduleSlot(schedule.schedule, when(8), "01a1fcb3-0624-7000-85e2-d8cd4c4ef8d2")).toBe(false);
    expect(await store.claimScheduleSlot(schedule.schedule, when(9), "01a1fcb3-0624-7000-85e2-d8cd4c4ef8d2")).toBe(true);
    await store.advanceSchedule(schedule.schedule, when(9));
    expect((await client.taskSchedule.findUniqueOrThrow({ where: { schedule: schedule.schedule } })).lastSlot).toEqual(when(9));
    await store.advanceSchedule(schedule.schedule, when(8));
    expect((await client.taskSchedule.findUniqueOrThrow({ where: { schedule: schedule.schedule } })).lastSlot).toEqual(when(9));
  });

  it("has a column of the model's type for every field, and no column the model lacks", async () => {
    await dialect.columns(database.url, client);
  });

  it.runIf(dialect.indexes !== undefined)("has every index the model declares, under the name Prisma gives it, and no other", async () => {
    await dialect.indexes!(database.url);
  });
});
