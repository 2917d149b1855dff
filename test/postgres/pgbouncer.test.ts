// The worker, the cleaner, the app's enqueue and the CLI through PgBouncer 1.18 in transaction mode (`pgbouncer=true`
// in the URL): the app's transaction enqueues and wakes by NOTIFY through it; a worker with a direct URL LISTENs there
// and is woken at commit, one without polls and says so once; a cleaner needs directUrl for its leader lock and
// refuses to start without it, naming the option; `task-runner migrate` needs it too.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCleaner, createWorker, defineTasks, type Cleaner, type Worker, type WorkerOptions } from "../../src/index.js";
import { runCli } from "../cli/cli-process.js";
import { pgbouncerDialect } from "../conformance/store/pgbouncer-dialect.js";
import { waitUntil } from "../support/wait.js";
import { recordingLogger, WorkerTestBed } from "../worker/harness.js";

const tasks = defineTasks({ greet: { payload: z.object({ to: z.string() }), handler: async ({ to }) => `hello ${to}` } });

// One server connection behind PgBouncer: every client's statements meet in one server session, so a named prepared
// statement of one worker collides with the next worker's at once ("prepared statement … already exists").
const throughPgBouncer = pgbouncerDialect(1);

describe("through PgBouncer in transaction mode", () => {
  let bed: WorkerTestBed;
  let direct: string;
  const cleaners: Cleaner[] = [];
  const workers: Worker[] = [];
  /** A worker on the PgBouncer URL, woken by NOTIFY (no broker). */
  const startWorker = async (options: Partial<WorkerOptions<typeof tasks>>) => {
    const worker = createWorker({ tasks, databaseUrl: bed.url, amqpPrefix: bed.prefix, ...options });
    workers.push(worker);
    await worker.start();
    return worker;
  };

  beforeAll(async () => {
    bed = await WorkerTestBed.create(throughPgBouncer);
    direct = throughPgBouncer.storeOptions!(bed.url).directUrl!;
  });

  afterAll(async () => {
    for (const cleaner of cleaners) await cleaner.stop();
    for (const worker of workers) await worker.stop();
    await bed?.closeAll();
  });

  it("a worker without a direct URL polls and says so once; with one it is woken by NOTIFY at commit", async () => {
    const prisma = bed.prisma(tasks, "");
    const polling = recordingLogger();
    const pollingWorker = await startWorker({ pollIntervalMs: 200, logger: polling, workerId: "polling" });
    expect(polling.lines.filter((line) => line.level === "warn").map((line) => line.message)).toEqual([
      "NOTIFY wake-ups need a LISTEN session of their own, which PgBouncer in transaction mode (pgbouncer=true in the database URL) does not keep; this worker polls for due tasks instead. Set listenUrl (or directUrl) to a direct URL of the same database to be woken at commit",
    ]);
    expect(polling.find("worker started")[0]!.fields).toMatchObject({ wakeups: "polls every 200 ms" });
    const first = await prisma.task.enqueue("greet", { to: "pgbouncer" });
    await waitUntil(async () => (await bed.status(first.id)) === "succeeded", "the polled task", 20_000);
    expect(polling.find("task claimed", { taskId: first.id })[0]!.fields).toMatchObject({ via: "poll" });

    await pollingWorker.stop();
    const woken = recordingLogger();
    await startWorker({ directUrl: direct, pollIntervalMs: 60_000, logger: woken, workerId: "woken" });
    expect(woken.find("worker started")[0]!.fields).toMatchObject({ wakeups: "woken by PostgreSQL NOTIFY" });
    const second = await prisma.task.enqueue("greet", { to: "pgbouncer" });
    await waitUntil(async () => (await bed.status(second.id)) === "succeeded", "the woken task", 20_000);
    const claims = [...polling.find("task claimed", { taskId: second.id }), ...woken.find("task claimed", { taskId: second.id })];
    expect(claims.map((line) => line.fields.via)).toEqual(["wakeup"]);
    expect((await bed.row(second.id)).result).toBe("hello pgbouncer");
    expect([...polling.lines, ...woken.lines].filter((line) => line.level === "error")).toEqual([]);
  });

  it("a cleaner needs directUrl for its leader lock: without it createCleaner() refuses, naming the option; with it, it leads", async () => {
    expect(() => createCleaner({ tasks, databaseUrl: bed.url, amqpPrefix: bed.prefix, logger: recordingLogger() })).toThrow(
      /"directUrl".*session advisory lock.*PgBouncer in transaction mode \(pgbouncer=true\).*Set directUrl/s,
    );
    const logger = recordingLogger();
    const cleaner = createCleaner({ tasks, databaseUrl: bed.url, directUrl: direct, amqpPrefix: bed.prefix, logger, intervalMs: 100 });
    cleaners.push(cleaner);
    await cleaner.start();
    await waitUntil(() => logger.find("cleaner is leading").length === 1, "the cleaner to lead", 20_000);
  });

  it("task-runner status works through it; migrate asks for DIRECT_URL and runs through it", { timeout: 60_000 }, async () => {
    const env = { DATABASE_URL: bed.url, AMQP_URL: "" };
    const cwd = tmpdir();
    const status = await runCli(["status"], { cwd, env });
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/^default\s+greet\s+0\s+0\s+2\b/m);
    const migrations = ["migrate", "--migrations", join(process.cwd(), "prisma/migrations")];
    const refused = await runCli(migrations, { cwd, env });
    expect(refused).toMatchObject({ code: 2, stdout: "" });
    expect(refused.stderr).toContain("PgBouncer in transaction mode (pgbouncer=true): set DIRECT_URL (or --direct-url, or directUrl in the config)");
    // The test's tables came from a template, not from Prisma Migrate: --baseline records them, through the direct URL.
    const migrated = await runCli([...migrations, "--baseline"], { cwd, env: { ...env, DIRECT_URL: direct } });
    expect(migrated).toMatchObject({ code: 0, stderr: "" });
    expect(migrated.stdout).toContain("20261210000000_queue_controls");
  });
});
