// `task-runner init` on real project layouts: single-file and multi-file schemas, a clashing Task model, a rerun; and
// on each dialect's datasource, the migration it writes makes, in a real database, a table the store serves.

import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { initCommand } from "../../src/cli/init-command.js";
import { openStore } from "../../src/index.js";
import { prepared, sendInsert } from "../conformance/store/bed.js";
import { mysqlStoreDialect, postgresStoreDialect, sqliteStoreDialect } from "../conformance/store/dialects.js";

const BASE = `generator client {\n  provider = "prisma-client"\n  output   = "../generated"\n}\n\ndatasource db {\n  provider = "postgresql"\n}\n`;
const dirs: string[] = [];

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "ptq-init-"));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

async function run(cwd: string, ...argv: string[]) {
  return runWith(cwd, {}, ...argv);
}

async function runWith(cwd: string, env: NodeJS.ProcessEnv, ...argv: string[]) {
  let out = "";
  let err = "";
  const code = await initCommand(argv, { cwd, env, out: (s) => (out += s), err: (s) => (err += s) });
  return { code, out, err };
}

/** init's prose, with its line breaks (it wraps at 118 columns) read as spaces. */
const prose = (text: string) => text.replace(/\s+/g, " ");

function migrationOf(dir: string): string {
  const [name] = readdirSync(dir);
  return readFileSync(join(dir, name!, "migration.sql"), "utf8");
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("task-runner init", () => {
  it("appends the model to a single-file schema and writes the migration beside it", async () => {
    const cwd = project({ "prisma/schema.prisma": `${BASE}\nmodel User {\n  id Int @id\n}\n` });
    const result = await run(cwd);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(
      /Did add models Task \(table "tasks"\), TaskSchedule \(table "tasks_schedules"\), TaskScheduleSlot \(table "tasks_schedule_slots"\), TaskQueue \(table "tasks_queues"\), TaskQueueStart \(table "tasks_queue_starts"\), TaskTally \(table "tasks_tallies"\), TaskStep \(table "tasks_steps"\) and TaskEvent \(table "tasks_events"\) to prisma\/schema.prisma/,
    );
    expect(result.out).toMatch(/Did write the migration prisma\/migrations\/\d{14}_tasks_task_queue\/migration.sql/);
    const schema = readFileSync(join(cwd, "prisma/schema.prisma"), "utf8");
    expect(schema).toContain("model User {");
    expect(schema).toMatch(/model Task \{[\s\S]*@@map\("tasks"\)/);
    expect(migrationOf(join(cwd, "prisma/migrations"))).toContain('CREATE TABLE "tasks"');
  });

  it("with AMQP_URL set, prints the whole next step with amqpUrl and an explicit broker prefix from package.json's name", async () => {
    const cwd = project({ "prisma/schema.prisma": BASE, "package.json": JSON.stringify({ name: "@acme/shop web" }) });
    const result = await runWith(cwd, { AMQP_URL: "amqp://guest:guest@127.0.0.1:5672" });
    expect(result.code).toBe(0);
    const shared = 'amqpUrl: process.env.AMQP_URL, amqpPrefix: "acme.shop_web"';
    expect(result.out).toContain(
      "Next:\n" +
        "  1. apply it: npx task-runner migrate   (or npx prisma migrate deploy: both record it in _prisma_migrations)\n" +
        "  2. regenerate the client: npx prisma generate\n" +
        "  3. extend your client:\n" +
        `       const prisma = new PrismaClient({ adapter }).$extends(taskQueue({ tasks, ${shared} }));\n` +
        "  4. configure the worker and cleaner the same way, in task-runner.config.ts:\n" +
        `       export default defineConfig({ tasks, databaseUrl: process.env.DATABASE_URL, ${shared} });\n` +
        "     then run them: npx task-runner start\n\n" +
        "Wake-ups: RabbitMQ (AMQP_URL is set in the environment);",
    );
    expect(prose(result.out)).toContain(
      'amqpPrefix "acme.shop_web" comes from the name in package.json ("@acme/shop web"): it names this app\'s RabbitMQ exchanges and queues',
    );
  });

  it("takes --prefix, carries --model and --table into both snippets, and refuses an unusable prefix naming the fix", async () => {
    const cwd = project({ "prisma/schema.prisma": BASE });
    const chosen = await run(cwd, "--prefix", "billing", "--model", "QueueTask");
    expect(chosen.out).toContain('taskQueue({ tasks, amqpPrefix: "billing", model: "QueueTask", table: "queue_tasks" })');
    expect(chosen.out).toContain('defineConfig({ tasks, databaseUrl: process.env.DATABASE_URL, amqpPrefix: "billing", model: "QueueTask", table: "queue_tasks" })');
    expect(prose(chosen.out)).toContain('on the channel "billing.wakeups" (amqpPrefix "billing" comes from --prefix)');
    const bad = await run(project({ "prisma/schema.prisma": BASE }), "--prefix", "shop tasks!");
    expect(bad.code).toBe(2);
    expect(bad.err).toBe(
      'task-runner init: --prefix "shop tasks!" cannot name RabbitMQ exchanges and queues; use 1-100 letters, digits, "_", "." or "-", starting with a letter or digit, e.g. shop_tasks.\n',
    );
  });

  it("derives the prefix from the folder when there is no package.json name", async () => {
    const cwd = project({ "prisma/schema.prisma": BASE });
    const result = await run(cwd);
    const folder = cwd.split("/").at(-1)!;
    expect(prose(result.out)).toContain(`amqpPrefix "${folder.replace(/[^A-Za-z0-9_.-]/g, "_")}" (from the folder name ("${folder}"))`);
  });

  it("is a no-op on a second run", async () => {
    const cwd = project({ "prisma/schema.prisma": BASE });
    await run(cwd);
    const before = readFileSync(join(cwd, "prisma/schema.prisma"), "utf8");
    const again = await run(cwd);
    expect(again).toMatchObject({ code: 0 });
    expect(again.out).toMatch(/Nothing to do: prisma\/schema.prisma already has the prisma-task-queue model Task/);
    expect(readFileSync(join(cwd, "prisma/schema.prisma"), "utf8")).toBe(before);
    expect(readdirSync(join(cwd, "prisma/migrations"))).toHaveLength(1);
  });

  it("names the fields an earlier version's model lacks, and writes nothing over it", async () => {
    const cwd = project({ "prisma/schema.prisma": BASE });
    await run(cwd);
    const current = readFileSync(join(cwd, "prisma/schema.prisma"), "utf8");
    const older = current.replace(/^ {2}finishedBy .*\n/m, "").replace(/^ {2}errors .*\n/m, "");
    expect(older).not.toBe(current);
    writeFileSync(join(cwd, "prisma/schema.prisma"), older);
    const again = await run(cwd);
    expect(again.code).toBe(0);
    expect(again.out).toBe(
      "prisma/schema.prisma already has the prisma-task-queue model Task, from an earlier version: it lacks finishedBy, errors. " +
        "Add them from the package's model and copy its newer migrations into your migrations folder " +
        "(see docs/prisma-migrate.md in prisma-task-queue); init writes nothing over an existing model.\n",
    );
    expect(readFileSync(join(cwd, "prisma/schema.prisma"), "utf8")).toBe(older);
    expect(readdirSync(join(cwd, "prisma/migrations"))).toHaveLength(1);
  });

  it("names the schedule models an earlier version's schema lacks, renamed as the model is", async () => {
    const cwd = project({ "prisma/schema.prisma": `${BASE}\nmodel Task {\n  id Int @id\n}\n` });
    await run(cwd, "--model", "QueueTask");
    const current = readFileSync(join(cwd, "prisma/schema.prisma"), "utf8");
    const older = current.replace(/\n\/\/ prisma-task-queue: recurring tasks'[\s\S]*$/, "\n");
    expect(older).not.toContain("QueueTaskSchedule");
    writeFileSync(join(cwd, "prisma/schema.prisma"), older);
    const again = await run(cwd, "--model", "QueueTask");
    expect(again.code).toBe(0);
    expect(again.out).toBe(
      "prisma/schema.prisma already has the prisma-task-queue model QueueTask, from an earlier version: it lacks model QueueTaskSchedule, " +
        "model QueueTaskScheduleSlot, model QueueTaskQueue, model QueueTaskQueueStart, model QueueTaskTally, model QueueTaskStep, model QueueTaskEvent. Add them from the package's model and copy its newer migrations into your migrations folder " +
        "(see docs/prisma-migrate.md in prisma-task-queue); init writes nothing over an existing model.\n",
    );
    expect(readFileSync(join(cwd, "prisma/schema.prisma"), "utf8")).toBe(older);
  });

  it("adds a file to a multi-file schema folder", async () => {
    const cwd = project({ "prisma/schema/base.prisma": BASE, "prisma/schema/user.prisma": "model User {\n  id Int @id\n}\n" });
    const result = await run(cwd);
    expect(result.code).toBe(0);
    expect(readFileSync(join(cwd, "prisma/schema/task.prisma"), "utf8")).toMatch(/model Task \{/);
    expect(readFileSync(join(cwd, "prisma/schema/base.prisma"), "utf8")).toBe(BASE);
    expect(migrationOf(join(cwd, "prisma/schema/migrations"))).toContain('CREATE TABLE "tasks"');
  });

  it("refuses to touch an app's own Task model and names the fix", async () => {
    const cwd = project({ "prisma/schema.prisma": `${BASE}\nmodel Task {\n  id Int @id\n  title String\n}\n` });
    const result = await run(cwd);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/already has a model named Task\. Choose another name:\n {2}npx task-runner init --model QueueTask --table queue_tasks/);
    expect(result.err).toMatch(/taskQueue\(\{ tasks, model: "QueueTask", table: "queue_tasks" \}\)/);
  });

  it("writes a renamed model and table on request", async () => {
    const cwd = project({ "prisma/schema.prisma": `${BASE}\nmodel Task {\n  id Int @id\n}\n` });
    const result = await run(cwd, "--model", "QueueTask");
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/model: "QueueTask", table: "queue_tasks"/);
    const schema = readFileSync(join(cwd, "prisma/schema.prisma"), "utf8");
    expect(schema).toMatch(/model QueueTask \{[\s\S]*@@map\("queue_tasks"\)/);
    const sql = migrationOf(join(cwd, "prisma/migrations"));
    expect(sql).toContain('CREATE TABLE "queue_tasks"');
    expect(sql).not.toMatch(/"tasks/);
  });

  it("prints what it would do with --dry-run and writes nothing", async () => {
    const cwd = project({ "prisma/schema.prisma": BASE });
    const result = await run(cwd, "--dry-run");
    expect(result.out).toMatch(/^Would add models Task/);
    expect(readFileSync(join(cwd, "prisma/schema.prisma"), "utf8")).toBe(BASE);
  });

  it("refuses a datasource provider no dialect serves, listing the supported ones, and writes nothing", async () => {
    const cwd = project({ "prisma/schema.prisma": BASE.replace('"postgresql"', '"mongodb"') });
    const result = await run(cwd);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^task-runner init: the datasource provider "mongodb" is not supported\. Supported: PostgreSQL \(provider "postgresql"\)/);
    expect(readFileSync(join(cwd, "prisma/schema.prisma"), "utf8")).not.toContain("model Task");
    const none = project({ "prisma/schema.prisma": "model User {\n  id Int @id\n}\n" });
    expect((await run(none)).err).toMatch(/found no datasource with a provider in the schema/);
  });

  it("says where it looked when there is no schema, and rejects bad names", async () => {
    const cwd = project({ "README.md": "" });
    expect(await run(cwd)).toMatchObject({ code: 2, err: expect.stringMatching(/no Prisma schema found \(looked for prisma\/schema.prisma/) });
    expect(await run(cwd, "--model", "bad name")).toMatchObject({ code: 2, err: expect.stringMatching(/--model "bad name" is not a Prisma model name/) });
    expect(await run(cwd, "--bogus")).toMatchObject({ code: 2, err: expect.stringMatching(/Unknown option '--bogus'/) });
  });
});

const DATASOURCES = [
  {
    dialect: postgresStoreDialect,
    provider: "postgresql",
    model: "prisma/task.prisma",
    createTable: 'CREATE TABLE "queue_tasks"',
    indexes: [
      "queue_tasks_finished_idx",
      "queue_tasks_key_key",
      "queue_tasks_lease_idx",
      "queue_tasks_parent_id_idx",
      "queue_tasks_pending_idx",
      "queue_tasks_pkey",
      "queue_tasks_running_idx",
      "queue_tasks_unpublished_idx",
    ],
  },
  {
    dialect: sqliteStoreDialect,
    provider: "sqlite",
    model: "prisma/sqlite/task.prisma",
    createTable: 'CREATE TABLE "queue_tasks"',
    // Its index list takes the companion tables' indexes too (queue_tasks_leaders, queue_tasks_schedule*).
    indexes: [
      "queue_tasks_events_task_id_name_id_idx",
      "queue_tasks_finished_idx",
      "queue_tasks_key_key",
      "queue_tasks_lease_idx",
      "queue_tasks_parent_id_idx",
      "queue_tasks_pending_idx",
      "queue_tasks_running_idx",
      "queue_tasks_schedule_slots_fired_at_idx",
      "queue_tasks_tallies_slot_idx",
      "queue_tasks_unpublished_idx",
      "sqlite_autoindex_queue_tasks_1",
      "sqlite_autoindex_queue_tasks_leaders_1",
      "sqlite_autoindex_queue_tasks_queue_starts_1",
      "sqlite_autoindex_queue_tasks_queues_1",
      "sqlite_autoindex_queue_tasks_schedule_slots_1",
      "sqlite_autoindex_queue_tasks_schedules_1",
      "sqlite_autoindex_queue_tasks_steps_1",
      "sqlite_autoindex_queue_tasks_tallies_1",
    ],
    // The cleaners' leader lease lives in a table beside the tasks.
    companion: /model QueueTaskLeader \{[\s\S]*@@map\("queue_tasks_leaders"\)/,
  },
  {
    dialect: mysqlStoreDialect,
    provider: "mysql",
    model: "prisma/mysql/task.prisma",
    createTable: "CREATE TABLE `queue_tasks`",
    // Prisma's own names for the model's indexes, so a Prisma migration neither drops nor renames one.
    indexes: [
      "PRIMARY",
      "queue_tasks_finished_at_idx",
      "queue_tasks_key_key",
      "queue_tasks_parent_id_idx",
      "queue_tasks_status_lease_expires_at_idx",
      "queue_tasks_status_published_at_run_at_idx",
      "queue_tasks_status_queue_name_concurrency_key_idx",
      "queue_tasks_status_queue_priority_run_at_idx",
    ],
  },
];

describe.each<(typeof DATASOURCES)[number] & { companion?: RegExp }>(DATASOURCES)(
  "task-runner init on a $provider datasource",
  ({ dialect, provider, model, createTable, indexes, companion }) => {
    const schemaOf = (extra = "") => ({ "prisma/schema.prisma": `${BASE.replace('"postgresql"', `"${provider}"`)}${extra}` });

    it("writes the dialect's shipped model as it is", async () => {
      const cwd = project(schemaOf("\nmodel User {\n  id Int @id\n}\n"));
      expect((await run(cwd)).code).toBe(0);
      expect(readFileSync(join(cwd, "prisma/schema.prisma"), "utf8")).toContain(readFileSync(new URL(`../../${model}`, import.meta.url), "utf8"));
      expect(migrationOf(join(cwd, "prisma/migrations"))).toContain(createTable.replace("queue_tasks", "tasks"));
    });

    it("writes a renamed model whose migration makes, in a real database, a table with its indexes that the store serves", async () => {
      const cwd = project(schemaOf("\nmodel Task {\n  id Int @id\n}\n"));
      expect((await run(cwd, "--model", "QueueTask")).code).toBe(0);
      const schema = readFileSync(join(cwd, "prisma/schema.prisma"), "utf8");
      expect(schema).toMatch(/model QueueTask \{[\s\S]*@@map\("queue_tasks"\)/);
      if (companion) expect(schema).toMatch(companion);
      expect(schema).toMatch(/model QueueTaskSchedule \{[\s\S]*@@map\("queue_tasks_schedules"\)/);
      expect(schema).toMatch(/model QueueTaskScheduleSlot \{[\s\S]*@@map\("queue_tasks_schedule_slots"\)/);
      const sql = migrationOf(join(cwd, "prisma/migrations"));
      expect(sql).toContain(createTable);
      expect(sql).not.toMatch(/["`]tasks/);
      const database = await dialect.createDatabase();
      const raw = await dialect.raw(database.url);
      const store = openStore(database.url, { table: "queue_tasks", max: 1 });
      try {
        await raw.exec(sql);
        expect(await raw.indexNames("queue_tasks")).toEqual(indexes);
        expect(await store.check()).toBeUndefined();
        const row = prepared({ name: "n", key: "k" });
        expect(await sendInsert(store, [row])).toMatchObject([{ id: row.id, created: true, due: true }]);
        expect((await store.claimDue(5, { owner: "init", leaseMs: 1000, names: ["n"], queues: ["default"] })).map((task) => task.id)).toEqual([row.id]);
        expect(await store.complete("init", [{ id: row.id, resultJson: "1" }])).toEqual([row.id]);
        // The schedule tables, renamed with the task table, serve the store's schedule operations.
        const [state] = await store.syncSchedules([{ schedule: "n#k", taskName: "n", cron: "* * * * *", timeZone: "UTC" }]);
        expect(await store.claimScheduleSlot("n#k", new Date(state!.lastSlot.getTime() + 60_000), row.id)).toBe(true);
        expect(await store.claimScheduleSlot("n#k", new Date(state!.lastSlot.getTime() + 60_000), row.id)).toBe(false);
      } finally {
        await store.close();
        await raw.close();
        await database.drop();
      }
    });
  },
);
