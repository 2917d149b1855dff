// What the dashboard says about who ran a task and how it failed before: the overview counts a worker that finished
// tasks seconds ago (finished_by, not the cleared lease_owner), and the task page shows the error history, escaped,
// with no current error once the task succeeded.

import { afterAll, beforeAll, expect, it } from "vitest";
import { createDashboard, type Dashboard } from "../../src/dashboard/create-dashboard.js";
import { openStore, type Store } from "../../src/index.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { testPrisma } from "../support/prisma.js";
import { recordingLogger } from "./fixtures.js";

let db: TestDatabase;
let prisma: ReturnType<typeof testPrisma>;
let store: Store;
let dashboard: Dashboard;

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = testPrisma(db.url);
  store = openStore(db.url, { max: 2 });
  dashboard = createDashboard({ prisma, logger: recordingLogger(), authorize: () => true });
});

afterAll(async () => {
  await dashboard?.close();
  await store?.close();
  await prisma?.$disconnect();
  await db?.drop();
});

const filter = (owner: string) => ({ owner, leaseMs: 30_000, names: ["send-report"], queues: ["default"] });

it("counts the worker that finished a task seconds ago and shows the task's error history", async () => {
  const id = "0193c0de-1111-7000-8000-000000000001";
  await prisma.task.create({ data: { id, name: "send-report", payload: { reportId: "r1" } } });
  await store.claimByIds([id], filter("host:7:worker-x"));
  await store.fail("host:7:worker-x", [{ id, error: 'Error: <b>smtp</b> "down"\n    at send (mail.ts:1)', delayMs: 0, finalReason: null }]);
  await store.claimByIds([id], filter("host:7:worker-x"));
  expect(await store.complete("host:7:worker-x", [{ id, resultJson: '"sent"' }])).toEqual([id]);

  const overview = await (await dashboard.fetch(new Request("http://dashboard.test/"))).text();
  expect(overview).toMatch(/<div class="label">Workers seen<\/div>\s*<div class="value">1<\/div>/);
  expect(overview).toContain('<td class="mono">host:7:worker-x</td>');

  const page = await (await dashboard.fetch(new Request(`http://dashboard.test/tasks/${id}`))).text();
  expect(page).toMatch(/data-testid="finished-by"><span class="mono">host:7:worker-x<\/span>/);
  expect(page).not.toContain('data-testid="last-error"');
  expect(page).toContain("(last 1 failed attempts, oldest first)");
  expect(page).toContain("<strong>Attempt 1</strong>");
  expect(page).toContain("Error: &lt;b&gt;smtp&lt;/b&gt; &quot;down&quot;\n    at send (mail.ts:1)");
});

it("shows a workflow's steps in order, escaped: each one's result, and the wait it is in", async () => {
  const id = "0193c0de-1111-7000-8000-000000000002";
  await prisma.task.create({ data: { id, name: "send-report", payload: { reportId: "r2" } } });
  await store.claimByIds([id], filter("host:7:worker-y"));
  const run = { taskId: id, attempt: 1 };
  await store.recordStep("host:7:worker-y", { ...run, seq: 1, name: "<charge>", kind: "run", resultJson: '{"note":"<i>paid</i>"}' });
  await store.recordStep("host:7:worker-y", { ...run, seq: 2, name: "shipped", kind: "wait", resultJson: null });

  const page = await (await dashboard.fetch(new Request(`http://dashboard.test/tasks/${id}`))).text();
  expect(page).toContain('Steps <span class="heading-note">(2, in order)</span>');
  expect(page).toContain('<td class="mono">&lt;charge&gt;</td>');
  expect(page).toContain("&lt;i&gt;paid&lt;/i&gt;");
  expect(page).toMatch(/<td class="mono">shipped<\/td>[\s\S]*waiting for its event until <span class="muted">no deadline<\/span>/);
});

it("shows a workflow's children with their statuses and links, and a child's workflow", async () => {
  const parent = "0193c0de-1111-7000-8000-000000000003";
  const child = "0193c0de-1111-7000-8000-000000000004";
  await prisma.task.create({ data: { id: parent, name: "send-report", payload: { reportId: "r3" } } });
  await prisma.task.create({ data: { id: child, name: "send-report", payload: { reportId: "<r4>" } } });
  await store.linkChildren(parent, [child]);

  const page = await (await dashboard.fetch(new Request(`http://dashboard.test/tasks/${parent}`))).text();
  expect(page).toContain('Children <span class="heading-note">(1, oldest first)</span>');
  expect(page).toMatch(new RegExp(`<a class="mono" href="/tasks/${child}">${child}</a></td>\\s*<td>send-report</td>\\s*<td><span class="pill pending">pending</span>`));
  const childPage = await (await dashboard.fetch(new Request(`http://dashboard.test/tasks/${child}`))).text();
  expect(childPage).toMatch(new RegExp(`data-testid="parent"><a class="mono" href="/tasks/${parent}">${parent}</a>`));
});
