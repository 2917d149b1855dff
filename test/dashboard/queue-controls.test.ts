// The dashboard's queue controls over real HTTP on every dialect: the overview lists each queue as running or paused
// with the limits its workers declared, its Pause and Resume buttons (with the CSRF token) change the queue's row and
// say so, a resume wakes nothing when nothing waits, and a read-only dashboard shows no button and refuses the action.

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDashboard, type Dashboard } from "../../src/dashboard/create-dashboard.js";
import type { DashboardOptions } from "../../src/dashboard/dashboard-options.js";
import { openStore, type Store } from "../../src/index.js";
import { mysqlHarness, postgresHarness, sqliteHarness } from "../conformance/dialects.js";
import { prepared, sendInsert } from "../conformance/store/bed.js";
import { recordingLogger } from "./fixtures.js";

/** The overview's HTML, its CSRF cookie and token. */
async function overview(url: string) {
  const response = await fetch(`${url}/`);
  const html = await response.text();
  const cookie = response.headers
    .getSetCookie()
    .find((c) => c.startsWith("ptq_dashboard_csrf="))!
    .split(";")[0]!;
  return { html, cookie, token: /name="csrf" value="([0-9a-f]{64})"/.exec(html)?.[1] };
}

/** The overview's row of `queue`, as text. */
function queueRow(html: string, queue: string): string {
  const row = new RegExp(`<tr data-queue="${queue}">([\\s\\S]*?)</tr>`).exec(html)?.[1] ?? "";
  return row
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

describe.each([postgresHarness, sqliteHarness, mysqlHarness])("queue controls on the dashboard: $name", (dialect) => {
  let url: string;
  let drop: () => Promise<void>;
  let store: Store;
  const opened: Array<{ server: Server; dashboard: Dashboard }> = [];

  beforeAll(async () => {
    const database = await dialect.createDatabase();
    url = database.url;
    drop = () => database.drop();
    store = openStore(url, { max: 1 });
  });

  afterAll(async () => {
    for (const { server, dashboard } of opened) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await dashboard.close();
    }
    await store?.close();
    await drop?.();
  });

  async function serve(options: Partial<DashboardOptions>): Promise<string> {
    const dashboard = createDashboard({ databaseUrl: url, logger: recordingLogger(), ...options });
    const server = createServer((req, res) => dashboard(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    opened.push({ server, dashboard });
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it("pauses and resumes a queue with its button, showing its state and declared limits", async () => {
    await sendInsert(store, [prepared({ name: "send-email", queue: "mail" })]);
    await store.syncQueues([{ queue: "reports", concurrency: 5, rateLimit: { starts: 100, perMs: 60_000 } }]);
    const url = await serve({});
    const before = await overview(url);
    expect(queueRow(before.html, "mail")).toBe("mail running none Pause");
    expect(queueRow(before.html, "reports")).toBe("reports running at most 5 running; at most 100 starts per 1 min Pause");
    const post = (action: string, queue: string, cookie: string, token: string) =>
      fetch(`${url}/actions/${action}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie },
        body: `csrf=${token}&queue=${queue}`,
      });

    const paused = await post("pause", "mail", before.cookie, before.token!);
    expect(paused.url).toContain("done=pause&n=1");
    expect(await paused.text()).toContain("Paused: no worker claims the queue&#39;s tasks until it is resumed; running ones finish.");
    expect((await store.listQueues()).find((q) => q.queue === "mail")?.pausedAt).toBeInstanceOf(Date);
    const during = await overview(url);
    expect(queueRow(during.html, "mail")).toMatch(/^mail paused (just now|.+ ago) none Resume$/);
    expect((await post("pause", "mail", during.cookie, during.token!)).url).toContain("done=pause-none");

    const resumed = await post("resume", "mail", during.cookie, during.token!);
    expect(resumed.url).toContain("done=resume&n=1");
    expect((await store.listQueues()).find((q) => q.queue === "mail")?.pausedAt).toBeNull();
    expect((await post("resume", "mail", during.cookie, during.token!)).url).toContain("done=resume-none");
    expect((await post("pause", "bad%20queue!", during.cookie, during.token!)).status).toBe(404);
  });

  it("a read-only dashboard shows no button and refuses the action", async () => {
    const url = await serve({ readOnly: true });
    const { html, cookie } = await overview(url);
    expect(queueRow(html, "mail")).toBe("mail running none");
    const response = await fetch(`${url}/actions/pause`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie },
      body: `csrf=${cookie.split("=")[1]}&queue=mail`,
    });
    expect(response.status).toBe(403);
    expect((await store.listQueues()).find((q) => q.queue === "mail")?.pausedAt).toBeNull();
  });
});
