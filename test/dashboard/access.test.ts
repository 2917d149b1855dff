// Safe by default, over real HTTP against the real PostgreSQL: requests from other machines are refused without the
// token (simulated by giving the handler a non-loopback peer address), the token works as bearer and as a one-time
// ?token= that sets an HttpOnly cookie, binding a public address without a token is refused, actions need the CSRF
// token, and read-only refuses them.

import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDashboard, type Dashboard } from "../../src/dashboard/create-dashboard.js";
import type { DashboardOptions } from "../../src/dashboard/dashboard-options.js";
import { startDashboardServer } from "../../src/dashboard/server.js";
import { isLoopbackAddress, isLoopbackHost } from "../../src/dashboard/access.js";
import { TaskQueueConfigError } from "../../src/index.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { insertTask, recordingLogger } from "./fixtures.js";

const TOKEN = "test-token-0123456789abcdef";
let db: TestDatabase;
let sql: pg.Pool;
const opened: Array<{ server: Server; dashboard: Dashboard }> = [];

beforeAll(async () => {
  db = await createTestDatabase();
  sql = new pg.Pool({ connectionString: db.url, max: 2 });
});

afterAll(async () => {
  for (const { server, dashboard } of opened) {
    await new Promise((resolve) => server.close(resolve));
    await dashboard.close();
  }
  await sql?.end();
  await db?.drop();
});

/** A dashboard on 127.0.0.1 whose handler sees every peer as `peer` (as if the request came over the network). */
async function serve(options: Partial<DashboardOptions>, peer?: string): Promise<string> {
  const dashboard = createDashboard({ databaseUrl: db.url, logger: recordingLogger(), ...options });
  const server = createServer((req, res) => {
    if (peer) Object.defineProperty(req.socket, "remoteAddress", { value: peer, configurable: true });
    dashboard(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  opened.push({ server, dashboard });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A GET with headers fetch() may not set (Host). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { headers }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on("error", reject);
    request.end();
  });
}

/** GET a page and return the CSRF cookie and the form token it rendered. */
async function csrfFrom(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  const html = await response.text();
  const cookie = response.headers
    .getSetCookie()
    .find((c) => c.startsWith("ptq_dashboard_csrf="))!
    .split(";")[0]!;
  const token = /name="csrf" value="([0-9a-f]{64})"/.exec(html)?.[1];
  return { cookie, token, html };
}

describe("requests from other machines", () => {
  it("are refused when the dashboard has neither token nor authorize", async () => {
    const url = await serve({}, "203.0.113.7");
    const response = await fetch(`${url}/`);
    expect(response.status).toBe(403);
    expect(await response.text()).toContain("Requests from other machines are refused: this dashboard has no token and no authorize callback.");
  });

  it("need the token: refused without it or with a wrong one, let in with Authorization: Bearer", async () => {
    const url = await serve({ token: TOKEN }, "198.51.100.20");
    const without = await fetch(`${url}/tasks`);
    expect(without.status).toBe(401);
    expect(without.headers.get("www-authenticate")).toContain("Bearer");
    expect(await without.text()).toContain("Requests from other machines need the dashboard token");
    expect((await fetch(`${url}/tasks`, { headers: { authorization: "Bearer wrong-token-0123456789" } })).status).toBe(401);
    const bearer = await fetch(`${url}/tasks`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(bearer.status).toBe(200);
    expect(await bearer.text()).toContain("<h1>Tasks");
  });

  it("can open the page once with ?token=, which sets an HttpOnly cookie and drops the token from the address", async () => {
    const url = await serve({ token: TOKEN, basePath: "/ops/queue" }, "::ffff:192.0.2.44");
    const first = await fetch(`${url}/ops/queue/tasks?status=dead&token=${TOKEN}`, { redirect: "manual" });
    expect(first.status).toBe(303);
    expect(first.headers.get("location")).toBe("/ops/queue/tasks?status=dead");
    const session = first.headers.getSetCookie().find((c) => c.startsWith("ptq_dashboard_session="))!;
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Strict/);
    expect(session).toMatch(/Path=\/ops\/queue/);
    expect(session).not.toContain(TOKEN);
    const next = await fetch(`${url}/ops/queue/tasks?status=dead`, { headers: { cookie: session.split(";")[0]! } });
    expect(next.status).toBe(200);
    expect((await fetch(`${url}/ops/queue/`, { headers: { cookie: "ptq_dashboard_session=forged" } })).status).toBe(401);
    for (const path of ["/ops/queue", "/ops/queue/", "/ops/queue/assets/dashboard.js", "/ops/queue/nothing-here"]) {
      expect((await fetch(`${url}${path}`)).status, path).toBe(401);
    }
  });

  it("count as remote when a proxy forwarded them, even over loopback", async () => {
    const url = await serve({});
    expect((await fetch(`${url}/`)).status).toBe(200);
    const proxied = await fetch(`${url}/`, { headers: { "x-forwarded-for": "203.0.113.9" } });
    expect(proxied.status).toBe(403);
  });

  it("go to the authorize callback, which decides for every request without the token", async () => {
    const seen: Array<{ remoteAddress?: string; loopback: boolean }> = [];
    const url = await serve(
      {
        authorize: (request, context) => {
          seen.push({ remoteAddress: context.remoteAddress, loopback: context.loopback });
          return request.headers.get("x-user") === "ops";
        },
      },
      "203.0.113.50",
    );
    expect((await fetch(`${url}/`, { headers: { "x-user": "ops" } })).status).toBe(200);
    const refused = await fetch(`${url}/`, { headers: { "x-user": "guest" } });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("Your request was not authorized.");
    expect(seen[0]).toEqual({ remoteAddress: "203.0.113.50", loopback: false });
  });

  it("under a host name that is not this machine's are refused (DNS rebinding)", async () => {
    const url = await serve({});
    const rebound = await rawGet(`${url}/`, { host: "attacker.example:4000" });
    expect(rebound.status).toBe(403);
    expect(rebound.body).toContain("other host names could be DNS rebinding");
    expect((await rawGet(`${url}/`, { host: "localhost:4000" })).status).toBe(200);
  });

  it("get the same security headers as pages do, and none that reach beyond the dashboard", async () => {
    const url = await serve({}, "203.0.113.8");
    const local = await serve({});
    const responses = [await fetch(`${url}/`), await fetch(`${local}/`), await fetch(`${local}/assets/dashboard.js`)];
    expect(responses.map((response) => response.status)).toEqual([403, 200, 200]);
    for (const response of responses) {
      expect(response.headers.get("content-security-policy")).toBe(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; " +
          "frame-ancestors 'none'; base-uri 'none'",
      );
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("x-frame-options")).toBe("DENY");
      expect(response.headers.get("referrer-policy")).toBe("same-origin");
      expect(response.headers.get("strict-transport-security")).toBeNull();
      expect(response.headers.get("cross-origin-opener-policy")).toBeNull();
    }
  });

  it("recognises loopback peers and host names", () => {
    for (const address of ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"]) expect(isLoopbackAddress(address), address).toBe(true);
    for (const address of ["10.0.0.1", "192.168.1.2", "::ffff:10.0.0.1", "fe80::1", "", undefined]) expect(isLoopbackAddress(address), String(address)).toBe(false);
    for (const host of ["localhost:4000", "127.0.0.1:80", "[::1]:4000", "app.localhost"]) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ["example.com", "127.0.0.1.nip.io", "[fe80::1]:80", null]) expect(isLoopbackHost(host), String(host)).toBe(false);
  });
});

describe("startDashboardServer", () => {
  it("refuses to bind a non-loopback address without a token or authorize", async () => {
    const attempt = startDashboardServer({ databaseUrl: db.url, host: "0.0.0.0", port: 0 });
    await expect(attempt).rejects.toBeInstanceOf(TaskQueueConfigError);
    await expect(attempt).rejects.toThrow(
      'Invalid option "host": refusing to bind "0.0.0.0" without a token: anyone who reaches it could read payloads and retry or cancel tasks.',
    );
  });

  it("binds 127.0.0.1 by default and serves the overview", async () => {
    const server = await startDashboardServer({ databaseUrl: db.url, port: 0, logger: recordingLogger() });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      const response = await fetch(server.url);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-security-policy")).toContain("script-src 'self'");
    } finally {
      await server.close();
    }
  });
});

describe("actions", () => {
  it("reject a POST without the CSRF token, with a wrong one, or from another site, and change nothing", async () => {
    const logger = recordingLogger();
    const url = await serve({ logger });
    const id = await insertTask(sql, { name: "csrf-demo", status: "dead", lastError: "Error: x" });
    const { cookie, token } = await csrfFrom(`${url}/tasks/${id}`);
    expect(token).toBeDefined();
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${url}/tasks/${id}/retry`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie, ...headers },
        body,
      });
    const missing = await post("");
    expect(missing.status).toBe(403);
    expect(await missing.text()).toContain("the form carries no CSRF token");
    const wrong = await post(`csrf=${"0".repeat(64)}`);
    expect(wrong.status).toBe(403);
    expect(await wrong.text()).toContain("the form&#39;s CSRF token does not match the cookie");
    const noCookie = await fetch(`${url}/tasks/${id}/retry`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `csrf=${token}`,
    });
    expect(noCookie.status).toBe(403);
    expect((await post(`csrf=${token}`, { "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect((await sql.query<{ status: string }>("SELECT status FROM tasks WHERE id = $1", [id])).rows[0]!.status).toBe("dead");
    expect(logger.lines.filter((line) => line.message === "dashboard action refused by the CSRF check")).toHaveLength(4);

    const ok = await post(`csrf=${token}`);
    expect(ok.status).toBe(303);
    expect(ok.headers.get("location")).toBe(`/tasks/${id}?done=retry&n=1`);
    expect((await sql.query<{ status: string }>("SELECT status FROM tasks WHERE id = $1", [id])).rows[0]!.status).toBe("pending");
    expect(logger.lines.find((line) => line.message === "dashboard action")?.fields).toMatchObject({
      action: "retry",
      taskId: id,
      changed: 1,
      woken: 1, // no AMQP_URL on PostgreSQL: woken through NOTIFY
      requester: "127.0.0.1",
    });
  });

  it("are hidden and refused when read-only", async () => {
    const url = await serve({ readOnly: true });
    const id = await insertTask(sql, { name: "readonly-demo", status: "dead", lastError: "Error: y" });
    const { cookie, token, html } = await csrfFrom(`${url}/tasks/${id}`);
    expect(html).toContain("read-only");
    expect(html).not.toContain('data-action="retry"');
    expect(token).toBeUndefined();
    const { token: overviewToken } = await csrfFrom(`${url}/`);
    expect(overviewToken).toBeUndefined();
    const cookieValue = cookie.split("=")[1]!;
    for (const path of [`/tasks/${id}/retry`, "/actions/retry-dead"]) {
      const response = await fetch(`${url}${path}`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie },
        body: `csrf=${cookieValue}&name=readonly-demo`,
      });
      expect(response.status, path).toBe(403);
      expect(await response.text()).toContain("This dashboard is read-only: actions are disabled.");
    }
    expect((await sql.query<{ status: string }>("SELECT status FROM tasks WHERE id = $1", [id])).rows[0]!.status).toBe("dead");
  });

  it("say when there was nothing to change", async () => {
    const url = await serve({});
    const id = await insertTask(sql, { name: "noop-demo", status: "succeeded" });
    const { cookie } = await csrfFrom(`${url}/tasks/${id}`);
    const token = cookie.split("=")[1];
    const response = await fetch(`${url}/tasks/${id}/cancel`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie },
      body: `csrf=${token}`,
    });
    expect(response.status).toBe(200);
    expect(response.url).toContain("done=cancel-none");
    expect(await response.text()).toContain("Not cancelled: the task is no longer pending");
  });
});
