// What `task-runner init` prints per database and wake-up transport: every model it added, and snippets with amqpUrl
// only when RabbitMQ is configured (AMQP_URL in the environment or .env) or chosen (--wakeups rabbitmq).

import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { initCommand } from "../../src/cli/init-command.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A project whose schema's datasource has `provider`, named "shop" in its package.json, with `files` besides. */
function project(provider: string, files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "ptq-init-steps-"));
  dirs.push(dir);
  mkdirSync(join(dir, "prisma"));
  writeFileSync(join(dir, "prisma/schema.prisma"), `datasource db {\n  provider = "${provider}"\n}\n`);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "shop" }));
  for (const [path, text] of Object.entries(files)) writeFileSync(join(dir, path), text);
  return dir;
}

async function init(cwd: string, env: NodeJS.ProcessEnv = {}, ...argv: string[]) {
  let out = "";
  let err = "";
  const code = await initCommand(argv, { cwd, env, out: (s) => (out += s), err: (s) => (err += s) });
  return { code, out, err, prose: out.replace(/\s+/g, " ") };
}

const extension = (options: string) => `       const prisma = new PrismaClient({ adapter }).$extends(taskQueue({ tasks${options} }));\n`;
const config = (options: string) => `       export default defineConfig({ tasks, databaseUrl: process.env.DATABASE_URL${options} });\n`;
const AMQP = "amqp://guest:guest@127.0.0.1:5672";

describe("task-runner init's next steps", () => {
  it("PostgreSQL without AMQP_URL: no broker options, woken by NOTIFY", async () => {
    const result = await init(project("postgresql"));
    expect(result.code).toBe(0);
    expect(result.out).toMatch(
      /^Did add models Task \(table "tasks"\), TaskSchedule \(table "tasks_schedules"\), TaskScheduleSlot \(table "tasks_schedule_slots"\), TaskQueue \(table "tasks_queues"\), TaskQueueStart \(table "tasks_queue_starts"\), TaskTally \(table "tasks_tallies"\), TaskStep \(table "tasks_steps"\) and TaskEvent \(table "tasks_events"\) to prisma\/schema\.prisma\n/,
    );
    expect(result.out).toContain(extension(""));
    expect(result.out).toContain(config(""));
    expect(result.out).not.toContain("amqpUrl:");
    expect(result.out).not.toContain("amqpPrefix:");
    expect(result.prose).toContain("Wake-ups: PostgreSQL NOTIFY (PostgreSQL without AMQP_URL): no broker to run;");
  });

  it("SQLite without AMQP_URL: both models named, no broker options, in-process for the app's worker and polling for the runner", async () => {
    const result = await init(project("sqlite"));
    expect(result.code).toBe(0);
    expect(result.out).toMatch(
      /^Did add models Task \(table "tasks"\), TaskLeader \(table "tasks_leaders"\), TaskSchedule \(table "tasks_schedules"\), TaskScheduleSlot \(table "tasks_schedule_slots"\), TaskQueue \(table "tasks_queues"\), TaskQueueStart \(table "tasks_queue_starts"\), TaskTally \(table "tasks_tallies"\), TaskStep \(table "tasks_steps"\) and TaskEvent \(table "tasks_events"\) to prisma\/schema\.prisma\n/,
    );
    expect(result.out).toContain(extension(""));
    expect(result.out).toContain(config(""));
    expect(result.out).not.toContain("amqpUrl:");
    expect(result.prose).toContain(
      "a worker in your app's own process is woken in-process right after the commit; `task-runner start` runs in a process of its own and finds tasks by polling every 1000 ms",
    );
  });

  it("SQLite with --model: the leader and schedule models are renamed with it", async () => {
    const result = await init(project("sqlite"), {}, "--model", "QueueTask", "--dry-run");
    expect(result.out).toMatch(
      /^Would add models QueueTask \(table "queue_tasks"\), QueueTaskLeader \(table "queue_tasks_leaders"\), QueueTaskSchedule \(table "queue_tasks_schedules"\), QueueTaskScheduleSlot \(table "queue_tasks_schedule_slots"\), QueueTaskQueue \(table "queue_tasks_queues"\), QueueTaskQueueStart \(table "queue_tasks_queue_starts"\), QueueTaskTally \(table "queue_tasks_tallies"\), QueueTaskStep \(table "queue_tasks_steps"\) and QueueTaskEvent \(table "queue_tasks_events"\) to /,
    );
    expect(result.out).toContain(extension(', model: "QueueTask", table: "queue_tasks"'));
  });

  it("MySQL without AMQP_URL: no broker options, workers poll", async () => {
    const result = await init(project("mysql"));
    expect(result.code).toBe(0);
    expect(result.out).toMatch(
      /^Did add models Task \(table "tasks"\), TaskSchedule \(table "tasks_schedules"\), TaskScheduleSlot \(table "tasks_schedule_slots"\), TaskQueue \(table "tasks_queues"\), TaskQueueStart \(table "tasks_queue_starts"\), TaskTally \(table "tasks_tallies"\), TaskStep \(table "tasks_steps"\) and TaskEvent \(table "tasks_events"\) to /,
    );
    expect(result.out).toContain(config(""));
    expect(result.out).not.toContain("amqpUrl:");
    expect(result.prose).toContain("Wake-ups: none (MySQL without AMQP_URL): workers find tasks by polling the table every 1000 ms");
  });

  it("RabbitMQ configured (AMQP_URL in the environment, or in .env) or chosen: amqpUrl and the app's prefix in both snippets", async () => {
    const options = ', amqpUrl: process.env.AMQP_URL, amqpPrefix: "shop"';
    const fromEnv = await init(project("sqlite"), { AMQP_URL: AMQP });
    const fromDotEnv = await init(project("mysql", { ".env": `DATABASE_URL="mysql://root@127.0.0.1/shop"\nAMQP_URL="${AMQP}"\n` }));
    const chosen = await init(project("postgresql"), {}, "--wakeups", "rabbitmq");
    for (const result of [fromEnv, fromDotEnv, chosen]) {
      expect(result.code).toBe(0);
      expect(result.out).toContain(extension(options));
      expect(result.out).toContain(config(options));
    }
    expect(fromEnv.prose).toContain("Wake-ups: RabbitMQ (AMQP_URL is set in the environment);");
    expect(fromDotEnv.prose).toContain("Wake-ups: RabbitMQ (AMQP_URL is set in .env);");
    expect(chosen.prose).toContain("Wake-ups: RabbitMQ (--wakeups rabbitmq);");
    // An empty AMQP_URL (an unset variable written out) is no broker.
    expect((await init(project("sqlite"), { AMQP_URL: "" })).out).not.toContain("amqpUrl:");
  });

  it("--wakeups polling on PostgreSQL names it in both snippets; --wakeups notify is refused where NOTIFY does not exist", async () => {
    const polling = await init(project("postgresql"), {}, "--wakeups", "polling");
    expect(polling.out).toContain(extension(', wakeups: "polling"'));
    expect(polling.out).toContain(config(', wakeups: "polling"'));
    const refused = await init(project("sqlite"), {}, "--wakeups", "notify");
    expect(refused).toMatchObject({ code: 2, out: "" });
    expect(refused.err).toBe(
      "task-runner init: --wakeups notify needs PostgreSQL's LISTEN/NOTIFY, which SQLite does not have; use polling (or leave --wakeups out), or rabbitmq.\n",
    );
    expect((await init(project("postgresql"), {}, "--wakeups", "kafka")).err).toBe(
      'task-runner init: --wakeups "kafka" is not a wake-up transport; use rabbitmq, notify or polling.\n',
    );
  });
});
