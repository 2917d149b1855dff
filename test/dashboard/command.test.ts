// `task-runner dashboard` as a child process: serves until SIGTERM and exits 0, refuses a public bind without a token
// (exit 2), refuses to start on a database it cannot read (exit 1), and prints its help. test/cli/shape.test.ts covers
// the config file and the common flags.

import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { waitUntil } from "../support/wait.js";

const ENTRY = fileURLToPath(new URL("./fixtures/dashboard-command.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
let db: TestDatabase;
const children: ChildProcess[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await db?.drop();
});

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

function run(args: string[], env: Record<string, string | undefined>): Run {
  const child = spawn(process.execPath, ["--import", "tsx", ENTRY, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exit };
}

describe("task-runner dashboard", () => {
  it("serves on a free port until SIGTERM, then exits 0", async () => {
    const proc = run(["--port", "0", "--read-only", "--base-path", "/ops"], { DATABASE_URL: db.url });
    await waitUntil(() => /listening on http:\/\/127\.0\.0\.1:\d+\/ops\//.test(proc.stdout()), "the listening line", 30_000);
    const url = /listening on (\S+)/.exec(proc.stdout())![1]!;
    const response = await fetch(`${url}tasks`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("read-only");
    proc.child.kill("SIGTERM");
    expect(await proc.exit).toBe(0);
    expect(proc.stdout()).toContain("dashboard stopped");
  });

  it("refuses to bind 0.0.0.0 without TASK_RUNNER_DASHBOARD_TOKEN (exit 2)", async () => {
    const proc = run(["--host", "0.0.0.0", "--port", "0"], { DATABASE_URL: db.url });
    expect(await proc.exit).toBe(2);
    expect(proc.stderr()).toContain('refusing to bind "0.0.0.0" without a token');
    expect(proc.stderr()).toContain("Set TASK_RUNNER_DASHBOARD_TOKEN");
  });

  it("exits 1 with the reason when the task table cannot be read", async () => {
    const proc = run(["--port", "0", "--table", "no_such_table"], { DATABASE_URL: db.url });
    expect(await proc.exit).toBe(1);
    expect(proc.stderr()).toContain('relation "no_such_table" does not exist; the table "no_such_table" does not exist there: apply the migration');
  });

  it("exits 2 without DATABASE_URL or with a bad flag, and prints help with --help", async () => {
    const noUrl = run(["--port", "0"], {});
    expect(await noUrl.exit).toBe(2);
    expect(noUrl.stderr()).toContain(
      `task-runner dashboard: no database URL: set DATABASE_URL, pass --database-url, or set databaseUrl in a task-runner.config.ts (none found in ${ROOT.replace(/\/$/, "")}).`,
    );
    const badPort = run(["--port", "http"], { DATABASE_URL: db.url });
    expect(await badPort.exit).toBe(2);
    expect(badPort.stderr()).toContain('--port "http" is not a TCP port');
    const help = run(["--help"], {});
    expect(await help.exit).toBe(0);
    expect(help.stdout()).toContain("Usage: task-runner dashboard [options]");
  });
});
