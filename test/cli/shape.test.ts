// The CLI in one shape, as a subprocess: the dashboard reads the config file like every command, or runs from
// --database-url alone; a bad value's error names where it came from (the flag, the environment variable, the file).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { uniquePrefix } from "../support/broker.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { waitUntil } from "../support/wait.js";
import { fixtureDir, runCli, startCli, type CliRun } from "./cli-process.js";

let db: TestDatabase;
let empty: string;
const fileValues = fixtureDir("cli-file-values");
const app = fixtureDir("cli-app");
const running: CliRun[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  empty = mkdtempSync(join(tmpdir(), "task-runner-shape-"));
});

afterAll(async () => {
  for (const run of running) if (run.process.exitCode === null && run.process.signalCode === null) run.process.kill("SIGKILL");
  rmSync(empty, { recursive: true, force: true });
  await db?.drop();
});

/** Starts the dashboard, fetches its task list, stops it with SIGTERM; returns the page's status and the exit code. */
async function servesPage(args: string[], cwd: string, env: Record<string, string | undefined>): Promise<{ status: number; code: number | null }> {
  const run = startCli(["dashboard", "--port", "0", ...args], { cwd, env });
  running.push(run);
  await waitUntil(() => /listening on http:\/\/\S+/.test(run.stdout()) || run.process.exitCode !== null, "the listening line", 30_000);
  const url = /listening on (\S+)/.exec(run.stdout())?.[1];
  if (!url) throw new Error(`the dashboard did not start: ${run.stderr()}`);
  const status = (await fetch(`${url}tasks`)).status;
  run.process.kill("SIGTERM");
  return { status, code: await run.exited };
}

describe("task-runner dashboard", () => {
  it("serves its page with only a config file (no DATABASE_URL, no flag)", async () => {
    expect(await servesPage([], fileValues, { PTQ_FILE_DATABASE_URL: db.url })).toEqual({ status: 200, code: 0 });
  });

  it("serves its page with only --database-url (no config file, no DATABASE_URL)", async () => {
    expect(await servesPage(["--database-url", db.url], empty, {})).toEqual({ status: 200, code: 0 });
  });

  it("takes the common --table flag like every command, naming it when the table is missing", async () => {
    const result = await runCli(["dashboard", "--port", "0", "--database-url", db.url, "--table", "no_such_table"], { cwd: empty });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('relation "no_such_table" does not exist');
  });
});

describe("a bad value names where it came from", () => {
  it("the flag", async () => {
    const amqp = await runCli(["status", "--amqp-url", "http://broker:5672"], { cwd: app, env: { DATABASE_URL: db.url } });
    expect(amqp.code).toBe(2);
    expect(amqp.stderr).toBe(
      'task-runner status: --amqp-url: must be an AMQP URL (amqp:// or amqps://) such as amqp://guest:guest@127.0.0.1:5672, got "http://broker:5672".\n',
    );
    const database = await runCli(["dashboard", "--database-url", "mongodb://db/app"], { cwd: empty });
    expect(database.code).toBe(2);
    expect(database.stderr).toMatch(/^task-runner dashboard: --database-url: "mongodb:\/\/db\/app" is not a URL of a supported database\. Supported: /);
    const table = await runCli(["retry", "--dead", "--table", "no table"], { cwd: app, env: { DATABASE_URL: db.url } });
    expect(table.code).toBe(2);
    expect(table.stderr).toMatch(/^task-runner retry: --table: /);
    const wakeups = await runCli(["status", "--wakeups", "pigeons"], { cwd: empty, env: { DATABASE_URL: db.url } });
    expect(wakeups.code).toBe(2);
    expect(wakeups.stderr).toBe('task-runner status: --wakeups: "pigeons" is not a wake-up transport; use "rabbitmq", "notify" or "polling" (or leave it out).\n');
  });

  it("the environment variable", async () => {
    const amqp = await runCli(["cancel", "0193c0de-0000-7000-8000-000000000000"], { cwd: app, env: { DATABASE_URL: db.url, AMQP_URL: "rabbit:5672" } });
    expect(amqp.code).toBe(2);
    expect(amqp.stderr).toBe(
      'task-runner cancel: the environment variable AMQP_URL: must be an AMQP URL (amqp:// or amqps://) such as amqp://guest:guest@127.0.0.1:5672, got "rabbit:5672".\n',
    );
    const database = await runCli(["dashboard"], { cwd: empty, env: { DATABASE_URL: "db.example:5432" } });
    expect(database.code).toBe(2);
    expect(database.stderr).toMatch(/^task-runner dashboard: the environment variable DATABASE_URL: "db\.example:5432" is not a URL of a supported database/);
  });

  it("the config file", async () => {
    const result = await runCli(["status"], { cwd: fileValues, env: { PTQ_FILE_DATABASE_URL: db.url, PTQ_FILE_AMQP_URL: "http://guest:secret@broker" } });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'task-runner status: amqpUrl in ./task-runner.config.ts: must be an AMQP URL (amqp:// or amqps://) such as amqp://guest:guest@127.0.0.1:5672, got "http://guest:***@broker/".\n',
    );
    // The flag wins over the file, so the same bad file value is no longer in the way.
    const overridden = await runCli(["status", "--amqp-url", ""], { cwd: fileValues, env: { PTQ_FILE_DATABASE_URL: db.url, PTQ_FILE_AMQP_URL: "http://broker" } });
    expect(overridden.stderr).toBe("");
    expect(overridden.code).toBe(0);
  });

  it("a broker that refuses the worker's login: exit 2, naming the fix and where the URL came from", async () => {
    const url = new URL(inject("amqpUrl"));
    url.password = "wrong";
    const result = await runCli(["worker", "--amqp-url", url.toString()], { cwd: app, env: { DATABASE_URL: db.url, PTQ_PREFIX: uniquePrefix() } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^task-runner worker: could not start: Invalid option "amqpUrl": RabbitMQ at amqp:\/\/guest:\*\*\*@127\.0\.0\.1:5672 refused the user name or password \(ACCESS_REFUSED\): check the credentials in amqpUrl/m,
    );
    expect(result.stderr).toContain("(amqpUrl came from --amqp-url)\n");
    expect(result.stderr).not.toContain("wrong");
  });

  it("a database failure names the source of the URL in its advice", async () => {
    const result = await runCli(["status"], { cwd: fileValues, env: { PTQ_FILE_DATABASE_URL: `${db.url}_nope` } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("that database does not exist: check the database name in databaseUrl in ./task-runner.config.ts.");
  });
});
