// A worker SIGKILLed at every boundary of a workflow's steps, on every dialect: before a step, inside its function,
// after its effect and before its record, after its record. The task's next run (another process, once the cleaner
// recovered the lease) finishes the workflow: the transactional step's write happened exactly once whatever the
// boundary; the outside call at least once, every time with the same key, twice only when the kill fell between its
// effect and its record; every step is recorded once, in order.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../src/index.js";
import { prepared, sendInsert } from "../conformance/store/bed.js";
import { STORE_DIALECTS, type StoreDialect } from "../conformance/store/dialects.js";
import type { PrismaClient } from "../generated/client.js";
import { waitUntil } from "../support/wait.js";
import { WorkerProcess } from "../support/worker-process.js";

const POINTS = ["before:1", "inside:1", "effect:1", "recorded:1", "before:2", "inside:2", "effect:2", "recorded:2"];

describe.each(STORE_DIALECTS)("a worker killed at a step's boundary ($name)", (dialect: StoreDialect) => {
  let database: { url: string; drop(): Promise<void> };
  let store: Store;
  let prisma: PrismaClient;
  const spawned: WorkerProcess[] = [];

  beforeAll(async () => {
    database = await dialect.createDatabase();
    store = openStore(database.url, { max: 2 });
    prisma = dialect.prismaClient(database.url) as unknown as PrismaClient;
  });

  afterAll(async () => {
    for (const child of spawned) await child.kill();
    await prisma?.$disconnect();
    await store?.close();
    await database?.drop();
  });

  it.each(POINTS)("killed at %s: the workflow finishes, its transactional write once, its outside call once per run that reached it", async (killAt) => {
    const first = await WorkerProcess.start(
      { KILL_DATABASE_URL: database.url, KILL_AT: killAt, KILL_WORKER: "killed", KILL_LEASE_MS: "1000" },
      "test/workflow/kill-child.ts",
    );
    const row = prepared({ name: "kill-flow", payload: {} });
    const { id } = row;
    await sendInsert(store, [row]);
    expect(await first.exited, "the first worker killed itself").toBeNull();
    const held = await store.findTask(id);
    expect(held).toMatchObject({ status: "running", leaseOwner: "killed" });
    // The cleaner's recovery, once the lease has expired on the database's clock.
    await waitUntil(async () => (await store.now()).getTime() > held!.leaseExpiresAt!.getTime(), "the lease to expire");
    expect((await store.requeueExpired([id])).map((task) => task.id)).toEqual([id]);

    const second = await WorkerProcess.start({ KILL_DATABASE_URL: database.url, KILL_WORKER: "survivor" }, "test/workflow/kill-child.ts");
    spawned.push(second);
    try {
      await waitUntil(async () => (await store.findTask(id))?.status === "succeeded", "the workflow to finish", 30_000);
    } finally {
      second.signal("SIGTERM");
      await second.exited;
    }
    expect((await store.findTask(id))?.result).toBe(3);
    const key = `${id}:1`;
    const outside = await prisma.report.count({ where: { status: `outside:${key}` } });
    const inside = await prisma.report.count({ where: { status: `inside:${id}` } });
    // The outside call ran in each run that reached it before its record: twice only when the kill fell between.
    expect({ outside, inside }).toEqual({ outside: killAt === "effect:1" ? 2 : 1, inside: 1 });
    expect((await store.loadSteps(id)).map((step) => [step.seq, step.name, step.kind, step.resultJson])).toEqual([
      [1, "outside", "run", JSON.stringify(key)],
      [2, "inside", "transaction", '"written"'],
      [3, "last", "run", "3"],
    ]);
  });
});
