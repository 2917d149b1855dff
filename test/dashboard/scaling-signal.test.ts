// The overview's scaling signal on every dialect: per queue the backlog, the mean run and the workers the signal
// recommends, as queueSignals reads them; in Chromium (PostgreSQL), the arrival and completion chart is drawn.

import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDashboardServer, type DashboardServer } from "../../src/dashboard/server.js";
import { openStore, queueSignals, silentLogger, type Store } from "../../src/index.js";
import { prepared, sendInsert } from "../conformance/store/bed.js";
import { STORE_DIALECTS } from "../conformance/store/dialects.js";
import { waitUntil } from "../support/wait.js";
import { launchChromium } from "./fixtures.js";

const SIGNAL = { concurrency: 4 };

describe.each(STORE_DIALECTS)("overview: the scaling signal ($name)", (dialect) => {
  let database: { url: string; drop(): Promise<void> };
  let store: Store;
  let server: DashboardServer;

  beforeAll(async () => {
    database = await dialect.createDatabase();
    store = openStore(database.url, { max: 2 });
    // Five tasks of "mail" enqueued, two succeeded after 100 and 300 ms of work, three due: a backlog of 3.
    const rows = [0, 1, 2, 3, 4].map(() => prepared({ queue: "mail" }));
    await sendInsert(store, rows);
    const ids = rows.slice(0, 2).map((row) => row.id);
    await store.claimByIds(ids, { owner: "worker-1", leaseMs: 60_000, names: ["mail"], queues: ["mail"] });
    await store.complete("worker-1", [
      { id: ids[0]!, resultJson: "null" },
      { id: ids[1]!, resultJson: "null" },
    ]);
    await store.addSuccessTallies("worker-1", [{ queue: "mail", succeeded: 2, timed: 2, runMs: 400 }]);
    await waitUntil(async () => (await queueSignals(store, SIGNAL))[0]?.arrivalRate != null, "the tallies to cover a slot");
    server = await startDashboardServer({ databaseUrl: database.url, port: 0, logger: silentLogger, scalingSignal: SIGNAL });
  });

  afterAll(async () => {
    await server?.close();
    await store?.close();
    await database?.drop();
  });

  it("shows per queue the backlog, the mean run and the recommended workers", async () => {
    const page = await (await fetch(server.url)).text();
    const [signal] = await queueSignals(store, SIGNAL);
    expect(signal).toMatchObject({ queue: "mail", backlog: 3, meanProcessingSeconds: 0.2, concurrency: 4, recommendedWorkers: 1 });
    const row = /<tr data-signal-queue="mail">([\s\S]*?)<\/tr>/.exec(page.slice(page.indexOf('id="scaling-signal"')))?.[1] ?? "";
    const cells = [...row.matchAll(/<td[^>]*>([^<]*)<\/td>/g)].map((match) => match[1]);
    expect(cells).toEqual(["mail", expect.stringMatching(/^\d+\.\d\d$/), expect.stringMatching(/^\d+\.\d\d$/), "3", "200 ms", "4", "1"]);
    expect(page).toContain('id="signal-data"');
  });
});

describe("overview: the scaling signal chart in Chromium (postgresql)", () => {
  let database: { url: string; drop(): Promise<void> };
  let store: Store;
  let server: DashboardServer;
  let browser: Browser;

  beforeAll(async () => {
    database = await STORE_DIALECTS[0]!.createDatabase();
    store = openStore(database.url, { max: 2 });
    await sendInsert(store, [prepared({ queue: "mail" }), prepared({ queue: "reports" })]);
    server = await startDashboardServer({ databaseUrl: database.url, port: 0, logger: silentLogger });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await store?.close();
    await database?.drop();
  });

  it("draws the arrival and completion bars per queue, with the table beside them", async () => {
    await waitUntil(async () => (await queueSignals(store)).every((row) => row.arrivalRate !== null), "the tallies to cover a slot");
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    try {
      await page.goto(server.url);
      await page.locator("#signal-chart canvas").waitFor();
      expect(await page.locator("#scaling-signal .u-legend").textContent()).toContain("arrival / s");
      expect(await page.locator('#scaling-signal tr[data-signal-queue="reports"] .recommended').textContent()).toBe("?");
    } finally {
      await page.close();
    }
  });
});
