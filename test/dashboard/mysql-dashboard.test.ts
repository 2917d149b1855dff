// The dashboard on MySQL over real HTTP against MariaDB, on its own pool (databaseUrl) and through the app's Prisma
// client (prisma): the overview counts and names the leading cleaner's session, the list filters, the task page shows
// the row, and an action (with its CSRF token) changes it.

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Pool } from "mariadb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { electionTiming } from "../../src/cleaner/election-timing.js";
import { createDashboard, type Dashboard } from "../../src/dashboard/create-dashboard.js";
import type { DashboardOptions } from "../../src/dashboard/dashboard-options.js";
import { openStore, silentLogger, type Store } from "../../src/index.js";
import { createMysqlTestDatabase, mysqlTestPool, type MysqlTestDatabase } from "../support/mysql-database.js";
import { testMysqlPrisma } from "../support/mysql-prisma.js";
import { insertMysqlRows, mysqlRowOf } from "../mysql/rows.js";
import { recordingLogger } from "./fixtures.js";

let database: MysqlTestDatabase;
let sql: Pool;
let store: Store;
let prisma: ReturnType<typeof testMysqlPrisma>;
const opened: Array<{ server: Server; dashboard: Dashboard }> = [];

beforeAll(async () => {
  database = await createMysqlTestDatabase();
  sql = mysqlTestPool(database);
  store = openStore(database.url, { max: 1 });
  prisma = testMysqlPrisma(database.url);
});

afterAll(async () => {
  for (const { server, dashboard } of opened) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await dashboard.close();
  }
  await prisma?.$disconnect();
  await store?.close();
  await sql?.end();
  await database?.drop();
});

async function serve(options: Partial<DashboardOptions>): Promise<string> {
  const dashboard = createDashboard({ logger: recordingLogger(), ...options });
  await dashboard.check();
  const server = createServer(dashboard);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  opened.push({ server, dashboard });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function retryThroughForm(url: string, id: string): Promise<Response> {
  const detail = await fetch(`${url}/tasks/${id}`);
  const html = await detail.text();
  expect(html).toContain(id);
  const cookie = detail.headers
    .getSetCookie()
    .find((c) => c.startsWith("ptq_dashboard_csrf="))!
    .split(";")[0]!;
  const token = /name="csrf" value="([0-9a-f]{64})"/.exec(html)![1]!;
  return fetch(`${url}/tasks/${id}/retry`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: `csrf=${token}`,
  });
}

describe.each([
  ["its own pool (databaseUrl)", () => ({ databaseUrl: database.url })],
  ["the app's Prisma client (prisma)", () => ({ prisma })],
] as const)("on %s", (_label, options) => {
  it("shows the overview, the filtered list and a task, and retries a dead task", async () => {
    const tag = `dash-${Math.random().toString(36).slice(2, 8)}`;
    const [dead, pending] = await insertMysqlRows(sql, [
      { name: `${tag}-mail`, queue: "mail", status: "dead", attempts: 5, finishedAgoMs: 2000 },
      { name: `${tag}-mail`, queue: "mail", createdAgoMs: 120_000 },
    ]);
    await sql.query("UPDATE tasks SET last_error = ? WHERE id = ?", [`Error: ${tag} failed\n    at handler`, dead]);
    const url = await serve(options());

    const overview = await (await fetch(`${url}/`)).text();
    expect(overview).toContain("<title>Overview · Task queue</title>");
    expect(overview).toContain(`${tag}-mail`);
    // A small table needs no browse index: the overview does not advise it (see browse-index-advice.test.ts).
    expect(overview).not.toContain("The task table has no browse index");

    const list = await (await fetch(`${url}/tasks?status=dead&queue=mail`)).text();
    expect(list).toContain(dead);
    expect(list).not.toContain(pending);
    expect(list).toContain(`Error: ${tag} failed`);

    const posted = await retryThroughForm(url, dead!);
    expect(posted.status).toBe(303);
    expect(posted.headers.get("location")).toBe(`/tasks/${dead}?done=retry&n=1`);
    expect(await mysqlRowOf(sql, dead!)).toMatchObject({ status: "pending", attempts: 0, finished_at: null });
  });
});

it("names the leading cleaner's session on the overview", async () => {
  const url = await serve({ databaseUrl: database.url });
  expect(await (await fetch(`${url}/`)).text()).toMatch(/data-card="cleaner"[\s\S]*?<div class="value">none<\/div>/);
  const lock = store.leaderLock(store.defaultLockKey(), electionTiming(1000), silentLogger);
  try {
    expect(await lock.check()).toBe(true);
    const pid = (await store.leaderHolder(store.defaultLockKey()))!.pid;
    expect(await (await fetch(`${url}/`)).text()).toMatch(new RegExp(`data-card="cleaner"[\\s\\S]*?<div class="value">pid ${pid}</div>`));
  } finally {
    await lock.release();
  }
});
