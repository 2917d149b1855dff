// The CLI's usage surface as a subprocess: --help on every command, --version, unknown commands and flags, and every
// kind of bad config, each with its exit code (0 help, 2 usage/config) and a message that names the problem and the file.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fixtureDir, root, runCli } from "./cli-process.js";

const app = fixtureDir("cli-app");
const empty = mkdtempSync(join(tmpdir(), "task-runner-empty-"));

afterAll(() => rmSync(empty, { recursive: true, force: true }));

describe("--help", () => {
  it("lists the commands and exits 0; no command at all prints it to stderr and exits 2", async () => {
    const [help, none] = await Promise.all([runCli(["--help"], { cwd: app }), runCli([], { cwd: app })]);
    expect(help.code).toBe(0);
    for (const command of ["start", "worker", "cleaner", "status", "show", "retry", "cancel", "run", "init", "migrate"]) {
      expect(help.stdout).toMatch(new RegExp(`^  ${command} `, "m"));
    }
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("Usage: task-runner <command>");
  });

  // Ten CLI processes at once, each compiling the CLI with tsx: minutes on a loaded two-core machine, seconds on a quiet one.
  it("works on every command, without a config or a database", { timeout: 120_000 }, async () => {
    const commands = ["start", "worker", "cleaner", "status", "show", "retry", "cancel", "run", "init", "migrate"];
    const results = await Promise.all(commands.map((command) => runCli([command, "--help"], { cwd: empty })));
    results.forEach((result, index) => {
      expect(result, commands[index]).toMatchObject({ code: 0, stderr: "" });
      expect(result.stdout).toContain(`Usage: task-runner ${commands[index]}`);
    });
    expect(results[3]!.stdout).toContain("--json");
    expect(results[5]!.stdout).toContain("--dead");
    expect(results[4]!.stdout).toContain("error history");
    expect(results[0]!.stdout).toContain("Exit codes: 0 ok, 1 runtime failure");
    expect(results[9]!.stdout).toContain("--baseline");
    expect((await runCli(["help", "retry"], { cwd: empty })).stdout).toContain("Usage: task-runner retry");
  });
});

describe("usage errors exit 2", () => {
  it("for an unknown command", async () => {
    const result = await runCli(["wroker"], { cwd: app });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('task-runner: unknown command "wroker".');
  });

  it("for an unknown flag, naming the command's help", async () => {
    const result = await runCli(["status", "--jsn"], { cwd: app });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Unknown option '--jsn'.*Run `task-runner status --help`/);
  });

  it("for a task id that is not a UUID, or a missing one", async () => {
    const [bad, missing] = await Promise.all([runCli(["cancel", "42"], { cwd: app }), runCli(["retry"], { cwd: app })]);
    expect(bad).toMatchObject({ code: 2, stderr: 'task-runner cancel: "42" is not a task id (a UUID such as 0193c0de-…).\n' });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("`task-runner retry` takes one task id, got 0");
  });
});

describe("bad config exits 2 and says what is wrong in which file", () => {
  it("when there is no config file: required to run tasks, optional for the rest (then it asks for a database URL)", async () => {
    const result = await runCli(["worker"], { cwd: empty });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`no config file found in ${empty} (looked for task-runner.config.ts, task-runner.config.mts`);
    expect(result.stderr).toContain("or pass --config <path>");
    const status = await runCli(["status"], { cwd: empty });
    expect(status.code).toBe(2);
    expect(status.stderr).toBe(
      `task-runner status: no database URL: set DATABASE_URL, pass --database-url, or set databaseUrl in a task-runner.config.ts (none found in ${empty}).\n`,
    );
  });

  it("when --config points nowhere", async () => {
    const result = await runCli(["worker", "--config", "nope.config.ts"], { cwd: app });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${join(app, "nope.config.ts")}: no such file.`);
  });

  it("when the config throws while loading (no stack without --verbose, the stack with it)", async () => {
    const file = join(fixtureDir("cli-throwing"), "task-runner.config.ts");
    const plain = await runCli(["status"], { cwd: fixtureDir("cli-throwing") });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toBe(`task-runner status: ${file}: loading the config failed: SMTP_HOST is not set\n`);
    const verbose = await runCli(["status", "--verbose"], { cwd: fixtureDir("cli-throwing") });
    expect(verbose.code).toBe(2);
    expect(verbose.stderr).toMatch(/Caused by: Error: SMTP_HOST is not set\n\s+at /);
  });

  it("when the config has no default export", async () => {
    const result = await runCli(["cleaner"], { cwd: fixtureDir("cli-no-default") });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("task-runner.config.ts: has no default export. End it with `export default defineConfig(");
  });

  it("when the config has no tasks", async () => {
    const result = await runCli(["start"], { cwd: fixtureDir("cli-no-tasks") });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("cli-no-tasks/task-runner.config.ts: has no tasks. Pass the registry: defineConfig({ tasks: defineTasks({...}) }).");
  });

  it("when a task has no payload schema", async () => {
    const result = await runCli(["worker"], { cwd: fixtureDir("cli-bad-task") });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('cli-bad-task/task-runner.config.ts: Invalid definition of task "send-email": `payload` must be a zod schema');
  });

  it("when no database URL is set anywhere", async () => {
    const result = await runCli(["status"], { cwd: fixtureDir("cli-no-url") });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `no database URL: set DATABASE_URL, pass --database-url, or set databaseUrl in ${join(fixtureDir("cli-no-url"), "task-runner.config.ts")}.`,
    );
  });

  it("loads a config from a CommonJS project too (it then fails only for want of a database URL)", async () => {
    const result = await runCli(["status"], { cwd: fixtureDir("cli-commonjs") });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("no database URL: set DATABASE_URL");
  });
});

describe("--version", () => {
  it("prints the package's own version (not the app's) with --version and -v, and exits 0", async () => {
    const expected = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
    const app = mkdtempSync(join(tmpdir(), "task-runner-version-"));
    try {
      writeFileSync(join(app, "package.json"), JSON.stringify({ name: "some-app", version: "9.9.9" }));
      const results = await Promise.all([runCli(["--version"], { cwd: app }), runCli(["-v"], { cwd: app })]);
      for (const result of results) expect(result).toEqual({ code: 0, stdout: `${expected}\n`, stderr: "" });
      expect(expected).toMatch(/^\d+\.\d+\.\d+/);
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  });
});

describe("a SQLite URL that cannot be used", () => {
  const cwd = fixtureDir("cli-no-url");
  const missing = join(cwd, "missing.db");

  it("names where it came from (the variable or the flag) and the fix, for every command, and exits 2", async () => {
    const [status, flag, start, dashboard] = await Promise.all([
      runCli(["status"], { cwd, env: { DATABASE_URL: "file:./missing.db" } }),
      runCli(["retry", "--dead", "--database-url", "file:./missing.db"], { cwd }),
      runCli(["start"], { cwd, env: { DATABASE_URL: "file:./missing.db" } }),
      runCli(["dashboard", "--port", "0"], { cwd, env: { DATABASE_URL: "file:./missing.db" } }),
    ]);
    const problem =
      `the SQLite database ${missing} (from "file:./missing.db") does not exist. A relative path is resolved against the ` +
      `working directory (${cwd}), as @prisma/adapter-better-sqlite3 does. Fix the path, or create the database by ` +
      `applying the migration (npx task-runner init writes it; npx task-runner migrate applies it and creates the file).\n`;
    expect(status).toEqual({ code: 2, stdout: "", stderr: `task-runner status: the environment variable DATABASE_URL: ${problem}` });
    expect(flag).toEqual({ code: 2, stdout: "", stderr: `task-runner retry: --database-url: ${problem}` });
    expect(start).toMatchObject({ code: 2, stderr: `task-runner start: the environment variable DATABASE_URL: ${problem}` });
    expect(dashboard).toMatchObject({ code: 2, stderr: `task-runner dashboard: the environment variable DATABASE_URL: ${problem}` });
  });

  it("says the same for URL parameters, which the Prisma adapter would read as part of the file name", async () => {
    const result = await runCli(["status"], { cwd, env: { DATABASE_URL: "file:./dev.db?connection_limit=1" } });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'task-runner status: the environment variable DATABASE_URL: "file:./dev.db?connection_limit=1" carries URL parameters, which ' +
        "@prisma/adapter-better-sqlite3 would take as part of the file name. Use file:<path> alone; set the busy timeout with the adapter's timeout option.\n",
    );
  });
});
