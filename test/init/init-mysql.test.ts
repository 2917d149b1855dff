// `task-runner init` on a Prisma project whose datasource is MySQL: it writes the MySQL model and migration (renamed on
// request), and the migration it wrote, applied to a real MariaDB database, makes a table the store serves, with the
// indexes under the names Prisma gives the renamed model's indexes.

import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initCommand } from "../../src/cli/init-command.js";
import { openStore, type Store } from "../../src/index.js";
import type { PreparedTask } from "../../src/store/enqueue-rows.js";
import { uuidv7 } from "../../src/uuid.js";
import { createMysqlTestDatabase, mysqlTestPool, runMysqlScripts, type MysqlTestDatabase } from "../support/mysql-database.js";

const BASE = `generator client {\n  provider = "prisma-client"\n  output   = "../generated"\n}\n\ndatasource db {\n  provider = "mysql"\n}\n`;
const dirs: string[] = [];

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "ptq-init-mysql-"));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

async function run(cwd: string, ...argv: string[]) {
  let out = "";
  let err = "";
  const code = await initCommand(argv, { cwd, out: (s) => (out += s), err: (s) => (err += s) });
  return { code, out, err };
}

function migrationOf(dir: string): string {
  const [name] = readdirSync(dir);
  return readFileSync(join(dir, name!, "migration.sql"), "utf8");
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("task-runner init on a mysql datasource", () => {
  it("writes the MySQL model and migration", async () => {
    const cwd = project({ "prisma/schema.prisma": `${BASE}\nmodel User {\n  id Int @id\n}\n` });
    const result = await run(cwd);
    expect(result.code).toBe(0);
    const schema = readFileSync(join(cwd, "prisma/schema.prisma"), "utf8");
    expect(schema).toContain(readFileSync(new URL("../../prisma/mysql/task.prisma", import.meta.url), "utf8"));
    const sql = migrationOf(join(cwd, "prisma/migrations"));
    expect(sql).toContain("CREATE TABLE `tasks`");
    expect(sql).toContain("`run_at` DATETIME(6)");
    expect(sql).not.toContain('"tasks"');
  });
});

describe("the migration init writes, on MariaDB", () => {
  let database: MysqlTestDatabase;
  let store: Store;
  beforeAll(async () => {
    database = await createMysqlTestDatabase({ migrate: false });
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it("creates a renamed table, with Prisma's names for its indexes, that the store serves", async () => {
    const cwd = project({ "prisma/schema.prisma": `${BASE}\nmodel Task {\n  id Int @id\n}\n` });
    expect((await run(cwd, "--model", "QueueTask")).code).toBe(0);
    const schema = readFileSync(join(cwd, "prisma/schema.prisma"), "utf8");
    expect(schema).toMatch(/model QueueTask \{[\s\S]*@@index\(\[status, queue, priority\(sort: Desc\), runAt\]\)[\s\S]*@@map\("queue_tasks"\)/);
    await runMysqlScripts(database.serverUrl, database.name, [migrationOf(join(cwd, "prisma/migrations"))]);

    const sql = mysqlTestPool(database);
    try {
      const indexes = (await sql.query(
        "SELECT DISTINCT INDEX_NAME AS name FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'queue_tasks' ORDER BY INDEX_NAME",
      )) as Array<{ name: string }>;
      expect(indexes.map((row) => row.name)).toEqual([
        "PRIMARY",
        "queue_tasks_finished_at_idx",
        "queue_tasks_key_key",
        "queue_tasks_status_lease_expires_at_idx",
        "queue_tasks_status_published_at_run_at_idx",
        "queue_tasks_status_queue_priority_run_at_idx",
      ]);
    } finally {
      await sql.end();
    }

    store = openStore(database.url, { table: "queue_tasks", max: 1 });
    expect(await store.check()).toBeUndefined();
    const row: PreparedTask = { id: uuidv7(), name: "n", queue: "default", json: "{}", priority: 0, delayMs: 0, runAt: null, maxAttempts: 3, key: "k" };
    const insert = store.insertTasks([row], false);
    const [inserted] = await insert.read(await insert.request);
    expect(inserted).toMatchObject({ id: row.id, created: true, due: true });
    const claimed = await store.claimDue(5, { owner: "init", leaseMs: 1000, names: ["n"], queues: ["default"] });
    expect(claimed.map((task) => task.id)).toEqual([row.id]);
    expect(await store.complete("init", [{ id: row.id, resultJson: "1" }])).toEqual([row.id]);
  });
});
