// Mounting the dashboard in an existing app: as Express middleware under a path (after a body parser), as a plain
// node:http handler with a base path, and through fetch() as a Next.js App Router route handler would call it.

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDashboard, type Dashboard } from "../../src/dashboard/create-dashboard.js";
import { TaskQueueConfigError, TaskTableUnreadableError } from "../../src/index.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { testPrisma } from "../support/prisma.js";
import { insertTask, recordingLogger } from "./fixtures.js";

let db: TestDatabase;
let sql: pg.Pool;
let prisma: ReturnType<typeof testPrisma>;
const servers: Server[] = [];
const dashboards: Dashboard[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  sql = new pg.Pool({ connectionString: db.url, max: 2 });
  prisma = testPrisma(db.url);
});

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  for (const dashboard of dashboards) await dashboard.close();
  await prisma?.$disconnect();
  await sql?.end();
  await db?.drop();
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("Express", () => {
  it("serves under app.use(basePath, dashboard) after a body parser, with the app's own routes untouched", async () => {
    const dashboard = createDashboard({ prisma, basePath: "/admin/tasks", logger: recordingLogger() });
    dashboards.push(dashboard);
    const app = express();
    app.use(express.urlencoded({ extended: false }));
    app.get("/health", (_req, res) => void res.send("app ok"));
    app.use("/admin/tasks", dashboard);
    const url = await listen(app);

    expect(await (await fetch(`${url}/health`)).text()).toBe("app ok");
    const overview = await fetch(`${url}/admin/tasks`);
    expect(overview.status).toBe(200);
    const html = await overview.text();
    expect(html).toContain('href="/admin/tasks/assets/dashboard.css"');
    expect(html).toContain('href="/admin/tasks/tasks"');
    expect((await fetch(`${url}/admin/tasks/assets/uplot.js`)).headers.get("content-type")).toContain("javascript");

    const id = await insertTask(sql, { name: "express-demo", status: "dead", lastError: "Error: e" });
    const detail = await fetch(`${url}/admin/tasks/tasks/${id}`);
    const cookie = detail.headers.getSetCookie().find((c) => c.startsWith("ptq_dashboard_csrf="))!;
    expect(cookie).toContain("Path=/admin/tasks");
    const token = /name="csrf" value="([0-9a-f]{64})"/.exec(await detail.text())![1]!;
    const posted = await fetch(`${url}/admin/tasks/tasks/${id}/retry`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookie.split(";")[0]! },
      body: `csrf=${token}`,
    });
    expect(posted.status).toBe(303);
    expect(posted.headers.get("location")).toBe(`/admin/tasks/tasks/${id}?done=retry&n=1`);
    expect((await sql.query<{ status: string }>("SELECT status FROM tasks WHERE id = $1", [id])).rows[0]!.status).toBe("pending");
  });

  it("passes requests outside its base path to next() when used as app-wide middleware", async () => {
    const dashboard = createDashboard({ prisma, basePath: "/queue", logger: recordingLogger() });
    dashboards.push(dashboard);
    const app = express();
    app.use(dashboard);
    app.get("/elsewhere", (_req, res) => void res.send("next() reached"));
    const url = await listen(app);
    expect(await (await fetch(`${url}/elsewhere`)).text()).toBe("next() reached");
    expect((await fetch(`${url}/queue/tasks`)).status).toBe(200);
  });
});

describe("node:http", () => {
  it("answers 404 outside its base path and serves inside it", async () => {
    const dashboard = createDashboard({ databaseUrl: db.url, basePath: "/ops/", logger: recordingLogger() });
    dashboards.push(dashboard);
    const url = await listen(dashboard);
    expect((await fetch(`${url}/other`)).status).toBe(404);
    expect((await fetch(`${url}/opsx`)).status).toBe(404);
    const response = await fetch(`${url}/ops/`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("<title>Overview · Task queue</title>");
    expect((await fetch(`${url}/ops/no-such-page`)).status).toBe(404);
    expect((await fetch(`${url}/ops/tasks/not-a-uuid`)).status).toBe(404);
  });
});

describe("fetch() (Next.js route handlers)", () => {
  it("treats a request without a peer address as remote: token or authorize required", async () => {
    const open = createDashboard({ prisma, basePath: "/api/tasks", logger: recordingLogger() });
    const guarded = createDashboard({ prisma, basePath: "/api/tasks", token: "next-token-0123456789", logger: recordingLogger() });
    dashboards.push(open, guarded);
    expect((await open.fetch(new Request("http://localhost:3000/api/tasks"))).status).toBe(403);
    const denied = await guarded.fetch(new Request("http://localhost:3000/api/tasks/tasks"));
    expect(denied.status).toBe(401);
    const allowed = await guarded.fetch(new Request("http://localhost:3000/api/tasks/tasks", { headers: { authorization: "Bearer next-token-0123456789" } }));
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toContain('action="/api/tasks/tasks"');
  });
});

describe("options", () => {
  it("refuse a missing or doubled database source, a bad base path and a short token, naming the fix", () => {
    expect(() => createDashboard({})).toThrow(
      'Invalid option "prisma": the dashboard needs a database: pass prisma (your client), store (openStore(url, { table })) or databaseUrl.',
    );
    expect(() => createDashboard({ prisma, databaseUrl: db.url })).toThrow("pass only one of prisma, store and databaseUrl.");
    expect(() => createDashboard({ databaseUrl: "mysql2://x" })).toThrow('Invalid option "databaseUrl": "mysql2://x" is not a URL of a supported database.');
    expect(() => createDashboard({ prisma: {} })).toThrow('Invalid option "prisma": this Prisma client does not say which database it uses.');
    expect(() => createDashboard({ prisma, basePath: "admin" })).toThrow(TaskQueueConfigError);
    expect(() => createDashboard({ prisma, basePath: "/a b" })).toThrow('Invalid option "basePath": "/a b" is not a URL path');
    expect(() => createDashboard({ prisma, token: "short" })).toThrow('Invalid option "token": use a random string of at least 16 characters');
    expect(() => createDashboard({ prisma, table: "tasks; drop" })).toThrow('Invalid option "table"');
    expect(() => createDashboard({ prisma, amqpPrefix: "bad prefix" })).toThrow('Invalid option "amqpPrefix"');
  });

  it("check() names a missing task table with a coded error", async () => {
    const dashboard = createDashboard({ prisma, table: "no_such_tasks", logger: recordingLogger() });
    dashboards.push(dashboard);
    const error: unknown = await dashboard.check().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(TaskTableUnreadableError);
    expect(error).toMatchObject({ code: "TASK_TABLE_UNREADABLE" });
    expect((error as Error).message).toContain("cannot read the task table");
  });
});
