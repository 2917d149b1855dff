// A SQLite app as it installs prisma-task-queue: without pg, amqplib, hono, @hono/node-server, tsx and
// @opentelemetry/api (hidden from import and require), the package resolved from node_modules enqueues, runs a worker
// (no span, no trace context stored, no error), and its CLI starts and reports;
// using a PostgreSQL URL, an amqpUrl, the dashboard or a TypeScript config then fails naming the package to install.

import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { installBuiltPackage, root } from "./installed-package.js";
import { createSqliteDatabase, type SqliteTestDatabase } from "../support/sqlite.js";

/** Inside the worktree (gitignored), so that the packages the built files load resolve from its node_modules. */
const scratch = join(root, ".scratch", `optional-peers-${process.pid}`);
const installed = join(scratch, "node_modules", "prisma-task-queue");
const bin = join(installed, "dist", "src", "cli", "main.js");
const HIDDEN = "pg,amqplib,hono,@hono/node-server,tsx,@opentelemetry/api";
const hidden = {
  NODE_OPTIONS: `--import ${pathToFileURL(join(root, "test", "support", "hide-packages.mjs")).href}`,
  HIDE_PACKAGES: HIDDEN,
};
const POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/postgres";
const AMQP_URL = "amqp://guest:guest@127.0.0.1:5672";
const missing = (name: string, neededFor: string, fix = `npm install ${name}`) =>
  `${neededFor} the ${name} package, an optional peer dependency of prisma-task-queue that is not installed: ${fix}`;
let db: SqliteTestDatabase;

beforeAll(async () => {
  await installBuiltPackage(scratch);
  // The app's own package.json: without it, the worktree's would make "prisma-task-queue" a self-reference to ./dist.
  writeFileSync(join(scratch, "package.json"), JSON.stringify({ name: "sqlite-app", private: true, type: "module" }));
  writeFileSync(join(scratch, "app.ts"), APP.replace("GENERATED_CLIENT", pathToFileURL(join(root, "test", "generated-sqlite", "client.ts")).href));
  writeFileSync(join(scratch, "task-runner.config.mjs"), CONFIG);
  mkdirSync(join(scratch, "typescript-config"));
  writeFileSync(join(scratch, "typescript-config", "task-runner.config.ts"), CONFIG);
  db = await createSqliteDatabase();
});

afterAll(async () => {
  rmSync(scratch, { recursive: true, force: true });
  await db?.drop();
});

it("enqueues and runs a worker on SQLite; a PostgreSQL URL, an amqpUrl and the dashboard name the package they need", async () => {
  // tsx only for the app's own TypeScript (loaded by its path): "tsx" as a package stays hidden from prisma-task-queue.
  const result = await node(["--import", tsxLoader(), join(scratch, "app.ts")], { ...hidden, DATABASE_URL: db.url });
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(JSON.parse(result.stdout)).toEqual({
    recorded: [{ name: "greet", payload: { who: "app" } }],
    ran: "app",
    otel: "not installed",
    traceContext: null,
    postgres: `TASK_PACKAGE_MISSING: ${missing("pg", "PostgreSQL URLs (postgresql://) need")}`,
    amqpExtension: `TASK_PACKAGE_MISSING: ${missing("amqplib", "wake-ups through RabbitMQ (amqpUrl) need")}`,
    amqpWorker: `TASK_PACKAGE_MISSING: ${missing("amqplib", "wake-ups through RabbitMQ (amqpUrl) need")}`,
    dashboard: `TASK_PACKAGE_MISSING: ${missing("hono", "the dashboard needs", "npm install hono @hono/node-server")}`,
  });
});

it("runs `task-runner start` with a JavaScript config and `status` on SQLite with no broker", async () => {
  const env = { ...hidden, DATABASE_URL: db.url };
  const started = startNode([bin, "start", "--log-format", "json"], env);
  await started.output((text) => text.includes('"worker started"') && text.includes('"cleaner started"'));
  started.child.kill("SIGTERM");
  expect(await started.exited).toBe(0);
  expect(started.stderr()).not.toContain('"level":"error"');

  const status = await node([bin, "status", "--json"], env);
  expect(status).toMatchObject({ code: 0, stderr: "" });
  const report = JSON.parse(status.stdout) as { tasks: Array<Record<string, unknown>>; broker: { state: string; transport: string } };
  expect(report.tasks).toEqual([expect.objectContaining({ queue: "default", name: "greet", succeeded: 1 })]);
  expect(report.broker).toMatchObject({ state: "none", transport: "polling" });
});

it("fails naming the package for a PostgreSQL URL, an amqpUrl, the dashboard and a TypeScript config", async () => {
  const cases: Array<{ args: string[]; env?: Record<string, string>; cwd?: string; message: string }> = [
    { args: ["status"], env: { DATABASE_URL: POSTGRES_URL }, message: `task-runner status: ${missing("pg", "PostgreSQL URLs (postgresql://) need")}` },
    { args: ["status"], env: { AMQP_URL: AMQP_URL }, message: `task-runner status: ${missing("amqplib", "wake-ups through RabbitMQ (amqpUrl) need")}` },
    { args: ["dashboard"], message: `task-runner dashboard: ${missing("hono", "the dashboard needs", "npm install hono @hono/node-server")}` },
    {
      args: ["start"],
      cwd: join(scratch, "typescript-config"),
      message: `task-runner start: ${missing("tsx", "a task-runner config written in TypeScript needs", "npm install tsx (or write the config in JavaScript, as task-runner.config.mjs)")}`,
    },
  ];
  for (const { args, env, cwd, message } of cases) {
    const result = await node([bin, ...args], { ...hidden, DATABASE_URL: db.url, ...env }, cwd);
    expect({ code: result.code, stderr: result.stderr }, args.join(" ")).toEqual({ code: 1, stderr: `${message}\n` });
  }
});

const APP = `
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { z } from "zod";
import { createWorker, defineTasks, openStore, silentLogger, taskQueue } from "prisma-task-queue";
import { recordEnqueues } from "prisma-task-queue/testing";
import { PrismaClient } from "GENERATED_CLIENT";

const url = process.env.DATABASE_URL!;
let ran!: (who: string) => void;
const handled = new Promise<string>((resolve) => (ran = resolve));
const tasks = defineTasks({ greet: { payload: z.object({ who: z.string() }), handler: async ({ who }) => ran(who) } });
const client = () => new PrismaClient({ adapter: new PrismaBetterSqlite3({ url }) });
const prisma = client().$extends(taskQueue({ tasks, logger: silentLogger }));
const recorder = recordEnqueues(prisma);
const worker = createWorker({ tasks, databaseUrl: url, prisma, logger: silentLogger });
await worker.start();
const enqueued = await prisma.$transaction(async (tx) => tx.task.enqueue("greet", { who: "app" }));
const who = await handled;
const store = openStore(url);
const traceContext = (await store.findTask(enqueued.id))?.traceContext;
await store.close();
await worker.stop();
recorder.stop();

const failure = (error: unknown) => \`\${(error as { code?: string }).code}: \${(error as Error).message}\`;
const thrown = (fn: () => unknown) => {
  try {
    fn();
    return "no error";
  } catch (error) {
    return failure(error);
  }
};
const bare = client();
const report = {
  recorded: recorder.enqueued().map(({ name, payload }) => ({ name, payload })),
  ran: who,
  otel: await import("@opentelemetry/api").then(() => "installed", () => "not installed"),
  traceContext,
  postgres: thrown(() => openStore("${POSTGRES_URL}")),
  amqpExtension: thrown(() => bare.$extends(taskQueue({ tasks, amqpUrl: "${AMQP_URL}", logger: silentLogger }))),
  amqpWorker: await createWorker({ tasks, databaseUrl: url, amqpUrl: "${AMQP_URL}", logger: silentLogger }).start().then(() => "started", failure),
  dashboard: await import("prisma-task-queue/dashboard").then(() => "imported", failure),
};
await bare.$disconnect();
await prisma.$taskQueue.close();
await prisma.$disconnect();
process.stdout.write(JSON.stringify(report));
`;

const CONFIG = `
import { defineConfig, defineTasks } from "prisma-task-queue";
import { z } from "zod";

export default defineConfig({ tasks: defineTasks({ greet: { payload: z.object({ who: z.string() }), handler: async () => undefined } }) });
`;

function tsxLoader(): string {
  const tsxManifest = createRequire(import.meta.url).resolve("tsx/package.json");
  const exports = (JSON.parse(readFileSync(tsxManifest, "utf8")) as { exports: Record<string, string> }).exports["."]!;
  return pathToFileURL(join(dirname(tsxManifest), exports)).href;
}

function startNode(args: string[], env: Record<string, string>, cwd = scratch) {
  const base = { ...process.env };
  delete base.NODE_OPTIONS;
  delete base.DATABASE_URL;
  delete base.AMQP_URL;
  const child = spawn(process.execPath, args, { cwd, env: { ...base, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  const watchers = new Set<() => void>();
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const watch of watchers) watch();
  });
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  return {
    child,
    exited,
    stdout: () => stdout,
    stderr: () => stderr,
    /** Resolves once stderr satisfies `done` (rejects if the process exits first). */
    output(done: (text: string) => boolean): Promise<void> {
      return new Promise((resolve, reject) => {
        const watch = () => {
          if (!done(stderr)) return;
          watchers.delete(watch);
          resolve();
        };
        watchers.add(watch);
        watch();
        void exited.then((code) => {
          if (watchers.delete(watch)) reject(new Error(`exited with ${code} before the expected output:\n${stderr}`));
        });
      });
    },
  };
}

async function node(args: string[], env: Record<string, string>, cwd = scratch): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = startNode(args, env, cwd);
  const code = await run.exited;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}
