// The order workflow end to end, in runner mode (next start and `npx task-runner start`, real PostgreSQL and
// RabbitMQ, a fresh database): an order placed with its workflow in one transaction is charged, packed by one child task
// per item, waits for the warehouse's webhook, whose tracking number and event commit together, sleeps before asking
// for a review, and completes; every step recorded once, in order, and each child linked to the workflow.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startExampleApp, type ExampleApp } from "./support/app";
import { start, whileRunning, type Started } from "./support/processes";
import { queryRows, startServices, type TestServices } from "./support/services";

let services: TestServices | undefined;
let example: ExampleApp | undefined;
let runner: Started | undefined;

before(async () => {
  services = await startServices();
  example = await startExampleApp("orders-app", "runner", services);
  runner = start("orders-runner", "npx", ["--no-install", "task-runner", "start"], example.env);
});

after(async () => {
  await Promise.all([runner?.stop(), example?.stop()]);
  await services?.cleanUp();
});

interface OrderView {
  status: string;
  tracking: string | null;
  workflow: { id: string; status: string; result: unknown } | null;
  steps: Array<{ seq: number; name: string; kind: string; state: string }>;
  children: Array<{ id: string; name: string; status: string }>;
}

async function order(id: string): Promise<OrderView> {
  const response = await fetch(`${example!.url}/api/orders/${id}`);
  assert.equal(response.status, 200, await response.clone().text());
  return (await response.json()) as OrderView;
}

/** Polls the order until `done` holds, failing with the last view and the processes' logs. */
async function until(id: string, done: (view: OrderView) => boolean, what: string): Promise<OrderView> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const view = await whileRunning([example!.server, runner!], order(id));
    if (done(view)) return view;
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}; last view ${JSON.stringify(view)}\n--- runner ---\n${runner?.tail()}\n--- app ---\n${example?.server.tail()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

test("an order is charged, packed by its children, shipped by the webhook's event and completed after its pause", async () => {
  const placed = await fetch(`${example!.url}/api/orders`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ items: ["mug", "teapot", "saucer"], reviewDelayMs: 1000 }),
  });
  assert.equal(placed.status, 201);
  const { orderId, workflowId } = (await placed.json()) as { orderId: string; workflowId: string };

  const packed = await until(orderId, (view) => view.status === "packed" && view.workflow?.status === "pending", "the order to be packed and its workflow to wait");
  assert.deepEqual(
    packed.children.map((child) => [child.name, child.status]),
    [
      ["pack-item", "succeeded"],
      ["pack-item", "succeeded"],
      ["pack-item", "succeeded"],
    ],
  );
  const linked = await queryRows<{ parent_id: string }>(services!.databaseUrl, "SELECT parent_id::text FROM tasks WHERE name = 'pack-item' AND parent_id = $1::uuid", [
    workflowId,
  ]);
  assert.equal(linked.length, 3, "each child names the workflow");

  // The webhook answers 400 without a tracking number and 404 for an unknown order, writing nothing.
  const post = (id: string, body: unknown) =>
    fetch(`${example!.url}/api/orders/${id}/shipped`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  assert.equal((await post(orderId, {})).status, 400);
  assert.equal((await post(crypto.randomUUID(), { tracking: "x" })).status, 404);
  assert.equal((await post(orderId, { tracking: "TRK-42" })).status, 200);

  const completed = await until(orderId, (view) => view.workflow?.status === "succeeded", "the workflow to complete");
  assert.equal(completed.status, "completed");
  assert.equal(completed.tracking, "TRK-42");
  assert.deepEqual(completed.workflow?.result, { orderId, chargeId: (completed.workflow?.result as { chargeId: string }).chargeId, boxes: 3, tracking: "TRK-42" });
  assert.deepEqual(
    completed.steps.map((step) => [step.seq, step.kind, step.name, step.state]),
    [
      [1, "run", "charge card", "done"],
      [2, "transaction", "mark charged", "done"],
      [3, "children", "pack items", "done"],
      [4, "wait-children", "wait for packing", "done"],
      [5, "transaction", "mark packed", "done"],
      [6, "wait", "await shipment", "done"],
      [7, "transaction", "mark shipped", "done"],
      [8, "sleep", "before review", "done"],
      [9, "transaction", "ask for review", "done"],
    ],
  );
  const [events] = await queryRows<{ n: number }>(services!.databaseUrl, "SELECT count(*)::int AS n FROM tasks_events WHERE task_id = $1::uuid AND consumed_seq = 6", [
    workflowId,
  ]);
  assert.equal(events!.n, 1, "the webhook's event was received by the wait, once");
});
