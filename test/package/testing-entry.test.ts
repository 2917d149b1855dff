// prisma-task-queue/testing as an app imports it: the export map names files the build emits, the entry reaches none
// of the heavy packages, and a plain `node` process (tsx only for the app's own TypeScript) that resolves
// "prisma-task-queue" and "prisma-task-queue/testing" from node_modules records and runs a task on SQLite.

import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { installBuiltPackage, root } from "./installed-package.js";
import { createSqliteDatabase, type SqliteTestDatabase } from "../support/sqlite.js";

/** Inside the worktree (gitignored), so that the packages the built files import resolve from its node_modules. */
const scratch = join(root, ".scratch", `package-testing-${process.pid}`);
const installed = join(scratch, "node_modules", "prisma-task-queue");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { exports: Record<string, string | Record<string, string>> };
let db: SqliteTestDatabase;

beforeAll(async () => {
  await installBuiltPackage(scratch);
  db = await createSqliteDatabase();
});

afterAll(async () => {
  rmSync(scratch, { recursive: true, force: true });
  await db?.drop();
});

it("maps ./testing to what tsconfig.build.json emits, like the other entry points", () => {
  const entry = manifest.exports["./testing"] as Record<string, string>;
  expect(entry).toEqual({ types: "./dist/src/testing/index.d.ts", import: "./dist/src/testing/index.js", default: "./dist/src/testing/index.js" });
  for (const [name, target] of Object.entries(manifest.exports)) {
    if (typeof target === "string") continue;
    for (const file of Object.values(target)) {
      const source = file.replace(/^\.\/dist\//, "").replace(/\.d\.ts$|\.js$/, ".ts");
      expect(existsSync(join(root, source)), `${name} → ${file}: tsc emits it from ${source}`).toBe(true);
    }
  }
});

it("imports prisma-task-queue/testing from node_modules and records and runs a task", async () => {
  // The app's own package.json: without it, the worktree's would make "prisma-task-queue" a self-reference to ./dist.
  writeFileSync(join(scratch, "package.json"), JSON.stringify({ name: "consumer-app", private: true, type: "module" }));
  const app = join(scratch, "app.ts");
  writeFileSync(app, APP.replace("GENERATED_CLIENT", pathToFileURL(join(root, "test", "generated-sqlite", "client.ts")).href));
  const result = await node(["--import", tsxLoader(), app], { DATABASE_URL: db.url });
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  const report = JSON.parse(result.stdout) as Record<string, unknown>;
  expect(report.resolved).toBe(pathToFileURL(join(installed, "dist", "src", "testing", "index.js")).href);
  expect(report.exports).toEqual(["InlineTaskError", "TaskAssertionError", "inlineQueue", "recordEnqueues"]);
  expect(report.recorded).toEqual([{ name: "greet", payload: { who: "app" } }]);
  expect(report.runs).toEqual([{ name: "greet", status: "succeeded", result: "hello app" }]);
  expect(report.assertion).toMatch(/^TaskAssertionError: Expected task "greet" to be enqueued with payload \{"who":"nobody"\}, but none of the 1 "greet" tasks matches/);
});

const APP = `
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { z } from "zod";
import { defineTasks, silentLogger, taskQueue } from "prisma-task-queue";
import * as testing from "prisma-task-queue/testing";
import { PrismaClient } from "GENERATED_CLIENT";

const tasks = defineTasks({ greet: { payload: z.object({ who: z.string() }), handler: async ({ who }) => "hello " + who } });
const prisma = new PrismaClient({ adapter: new PrismaBetterSqlite3({ url: process.env.DATABASE_URL! }) }).$extends(taskQueue({ tasks, logger: silentLogger }));
const queue = await testing.inlineQueue(prisma);
await prisma.$transaction(async (tx) => tx.task.enqueue("greet", { who: "app" }));
const runs = await queue.drain();
let assertion = "";
try {
  queue.assertEnqueued("greet", { payload: { who: "nobody" } });
} catch (error) {
  assertion = error instanceof testing.TaskAssertionError ? "TaskAssertionError: " + error.message : String(error);
}
const report = {
  resolved: import.meta.resolve("prisma-task-queue/testing"),
  exports: Object.keys(testing).sort(),
  recorded: queue.enqueued().map(({ name, payload }) => ({ name, payload })),
  runs: runs.map(({ name, status, result }) => ({ name, status, result })),
  assertion,
};
await queue.close();
await prisma.$taskQueue.close();
await prisma.$disconnect();
process.stdout.write(JSON.stringify(report));
`;

function tsxLoader(): string {
  const tsxManifest = createRequire(import.meta.url).resolve("tsx/package.json");
  const exports = (JSON.parse(readFileSync(tsxManifest, "utf8")) as { exports: Record<string, string> }).exports["."]!;
  return pathToFileURL(join(dirname(tsxManifest), exports)).href;
}

function node(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const base = { ...process.env };
  delete base.NODE_OPTIONS;
  const child = spawn(process.execPath, args, { cwd: scratch, env: { ...base, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}
