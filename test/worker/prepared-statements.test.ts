// The worker's frequent statements are prepared once per connection (the server parses and plans them once), and
// not at all with preparedStatements: false, for poolers that cannot keep them; the worker runs tasks either way.

import { afterAll, beforeAll, expect, it } from "vitest";
import { z } from "zod";
import { ownDb } from "../../src/dialects/postgres/own-db.js";
import { defineTasks } from "../../src/index.js";
import { waitUntil } from "../support/wait.js";
import { recordingLogger, WorkerTestBed } from "./harness.js";

const tasks = defineTasks({ echo: { payload: z.object({ n: z.number() }), handler: async ({ n }) => n } });

// PostgreSQL only: named prepared statements (and pg_prepared_statements) are the PostgreSQL pool's.
let bed: WorkerTestBed;
let prisma: ReturnType<WorkerTestBed["prisma"]>;

beforeAll(async () => {
  bed = await WorkerTestBed.create();
  prisma = bed.prisma(tasks);
});

afterAll(async () => {
  await bed?.closeAll();
});

/** The prepared statements of the connection that ran a named statement, as the server lists them. */
async function preparedAfterNamedQuery(preparedStatements: boolean | undefined): Promise<string[]> {
  const db = ownDb(bed.url, { max: 1, preparedStatements });
  try {
    return await db.transaction(async (tx) => {
      await tx.query("SELECT $1::int + 1 AS n", [41], "ptq_test_add");
      const rows = await tx.query<{ name: string; statement: string }>("SELECT name, statement FROM pg_prepared_statements", []);
      return rows.map((row) => `${row.name}: ${row.statement}`);
    });
  } finally {
    await db.close();
  }
}

it("prepares a named statement once per connection under its name and a hash of its text", async () => {
  const prepared = await preparedAfterNamedQuery(undefined);
  expect(prepared).toHaveLength(1);
  expect(prepared[0]).toMatch(/^ptq_test_add_[0-9a-f]{12}: SELECT \$1::int \+ 1 AS n$/);
});

it("prepares nothing with preparedStatements: false", async () => {
  expect(await preparedAfterNamedQuery(false)).toEqual([]);
});

for (const preparedStatements of [true, false]) {
  it(`runs tasks with preparedStatements: ${preparedStatements}`, async () => {
    const worker = await bed.startWorker({ tasks, preparedStatements, logger: recordingLogger() });
    const created = await prisma.task.enqueueMany([1, 2, 3].map((n) => ({ name: "echo" as const, payload: { n } })));
    await waitUntil(async () => {
      for (const task of created) if ((await bed.status(task.id)) !== "succeeded") return false;
      return true;
    }, "the three tasks to succeed");
    expect(await Promise.all(created.map(async (task) => (await bed.row(task.id)).result))).toEqual([1, 2, 3]);
    await worker.stop();
  });
}
