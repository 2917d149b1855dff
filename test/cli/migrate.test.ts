// `task-runner migrate` as the user runs it, a subprocess in a project that `task-runner init` set up: it finds the
// migrations folder beside the schema, applies init's migration to an empty PostgreSQL database (the queue can use the
// table at once) or creates the SQLite file, says when the database is up to date, and exits 3 on an edited
// migration, 2 on a missing folder, 1 on an unreachable database, each with its message.

import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { initCommand } from "../../src/cli/init-command.js";
import { openStore } from "../../src/index.js";
import { postgresUpgrade } from "../upgrade/upgrade-databases.js";
import { runCli } from "./cli-process.js";

const dirs: string[] = [];

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A project with a Prisma schema of `provider`, set up by `task-runner init` (run in this process); returns its root and its migration's name. */
async function initProject(provider: string): Promise<{ cwd: string; migration: string }> {
  const cwd = mkdtempSync(join(tmpdir(), "ptq-migrate-cli-"));
  dirs.push(cwd);
  mkdirSync(join(cwd, "prisma"));
  writeFileSync(join(cwd, "prisma", "schema.prisma"), `datasource db {\n  provider = "${provider}"\n}\n`);
  let err = "";
  expect(await initCommand([], { cwd, out: () => {}, err: (text) => (err += text) }), err).toBe(0);
  const [migration] = readdirSync(join(cwd, "prisma", "migrations"));
  return { cwd, migration: migration! };
}

describe("task-runner migrate as a subprocess", () => {
  it("applies init's migration on PostgreSQL, then says it is up to date; an edited migration exits 3", async () => {
    const { cwd, migration } = await initProject("postgresql");
    const database = await postgresUpgrade.open();
    try {
      const env = { DATABASE_URL: database.url };
      expect(await runCli(["migrate"], { cwd, env })).toEqual({ code: 0, stdout: `Applied ${migration}\n`, stderr: "" });
      const store = openStore(database.url, { max: 1 });
      try {
        expect(await store.check()).toBeUndefined();
      } finally {
        await store.close();
      }
      expect(await runCli(["migrate"], { cwd, env })).toEqual({
        code: 0,
        stdout: "The database is up to date: the one migration in prisma/migrations is applied.\n",
        stderr: "",
      });
      appendFileSync(join(cwd, "prisma", "migrations", migration, "migration.sql"), "-- one more index, later\n");
      const edited = await runCli(["migrate"], { cwd, env });
      expect(edited.code).toBe(3);
      expect(edited.stdout).toBe("");
      expect(edited.stderr).toMatch(
        new RegExp(
          `^task-runner migrate: ${join(cwd, "prisma", "migrations", migration, "migration.sql")} \\(recorded checksum [0-9a-f]{12}…, file now [0-9a-f]{12}…\\) changed after it was applied: `,
        ),
      );
    } finally {
      await database.close();
    }
  });

  it("creates the SQLite database file, as prisma migrate deploy does", async () => {
    const { cwd, migration } = await initProject("sqlite");
    const file = join(cwd, "prisma", "dev.db");
    expect(await runCli(["migrate", "--database-url", `file:${file}`], { cwd })).toEqual({ code: 0, stdout: `Applied ${migration}\n`, stderr: "" });
    expect(existsSync(file)).toBe(true);
    const store = openStore(`file:${file}`, {});
    try {
      expect(await store.check()).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it("exits 2 for a missing migrations folder and 1 for an unreachable database, saying what to do", async () => {
    const { cwd } = await initProject("postgresql");
    const [missing, unreachable] = await Promise.all([
      runCli(["migrate", "--migrations", "nowhere"], { cwd, env: { DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/postgres" } }),
      runCli(["migrate", "--database-url", "postgresql://app:secret@127.0.0.1:1/app"], { cwd }),
    ]);
    expect(missing).toEqual({
      code: 2,
      stdout: "",
      stderr:
        `task-runner migrate: The migrations folder ${join(cwd, "nowhere")} does not exist. Run \`task-runner init\` to write the task table's ` +
        "migration there, or pass the folder that holds your migrations with --migrations <dir>.\n",
    });
    expect(unreachable).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "task-runner migrate: cannot use the database at postgresql://app:***@127.0.0.1:1/app: connect ECONNREFUSED 127.0.0.1:1; " +
        "is PostgreSQL running and reachable there? Check the host and port in --database-url.\n",
    });
  });
});
