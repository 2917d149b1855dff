// Prisma 6.19 compat check on SQLite (@prisma/adapter-better-sqlite3 6.19): a transaction whose COMMIT fails on a
// deferred foreign key runs nothing; Prisma 6 keeps the adapter's transaction lock after that, so the client's next
// transaction and an enqueue that waited behind it fail at once (never hang, never return an id that vanishes), and a new
// client works. Exits 1 on any miss.

import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import Database from "better-sqlite3";
import { createWorker, defineTasks, silentLogger, TaskClientUnusableError, taskQueue } from "prisma-task-queue";
import { z } from "zod";
import { PrismaClient } from "./generated-sqlite/client.js";

const file = process.env.SQLITE_FILE!;
const url = `file:${file}`;
const ran: string[] = [];
const tasks = defineTasks<PrismaClient>()({
  hello: { payload: z.object({ n: z.number() }), handler: async (_payload, ctx) => void ran.push(ctx.task.id) },
});
const extend = () => new PrismaClient({ adapter: new PrismaBetterSQLite3({ url }) }).$extends(taskQueue({ tasks, logger: silentLogger }));
const prisma = extend();
const worker = createWorker({ tasks, databaseUrl: url, logger: silentLogger, pollIntervalMs: 50 });
await worker.start();

await prisma.$executeRawUnsafe(`CREATE TABLE guard (ref TEXT REFERENCES reports(id) DEFERRABLE INITIALLY DEFERRED)`);
let doomed = "";
let opened!: () => void;
const isOpen = new Promise<void>((resolve) => (opened = resolve));
let proceed!: () => void;
const mayProceed = new Promise<void>((resolve) => (proceed = resolve));
const failing = prisma
  .$transaction(async (tx) => {
    doomed = (await tx.task.enqueue("hello", { n: 1 })).id;
    opened();
    await mayProceed;
    await tx.$executeRawUnsafe(`INSERT INTO guard VALUES ('no-such-report')`);
  })
  .then(
    () => false,
    () => true,
  );
await isOpen;
// Another caller's enqueue while that transaction is open: it waits for it.
const during = prisma.task.enqueue("hello", { n: 2 }).then(
  (task) => task.id,
  (error: unknown) => error,
);
proceed();
const failed = await failing;
const duringOutcome = await during;
const next = await prisma
  .$transaction(async (tx) => tx.task.enqueue("hello", { n: 3 }))
  .then(
    (task) => task.id,
    (error: unknown) => error,
  );
const fresh = extend();
const afresh = await fresh.$transaction(async (tx) => tx.task.enqueue("hello", { n: 4 }));
const deadline = Date.now() + 10_000;
while (!ran.includes(afresh.id) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
await worker.stop();
for (const client of [prisma, fresh]) {
  await client.$taskQueue.close();
  await client.$disconnect();
}
const sql = new Database(file, { readonly: true });
const rows = sql.prepare("SELECT id, status FROM tasks").all() as Array<{ id: string; status: string }>;
sql.close();

const refused = (outcome: unknown) => outcome instanceof TaskClientUnusableError && /Prisma 6\.19/.test(outcome.message);
const checks: Array<[string, boolean]> = [
  ["a COMMIT failing on a deferred foreign key rejects the transaction", failed],
  ["its task has no row and never ran", doomed !== "" && !rows.some((row) => row.id === doomed) && !ran.includes(doomed)],
  [
    "an enqueue that waited behind it either ran once or failed naming the fix, never returned an id that vanished",
    typeof duringOutcome === "string" ? ran.filter((id) => id === duringOutcome).length === 1 : refused(duringOutcome),
  ],
  ["the client's next transaction fails at once with TaskClientUnusableError instead of waiting forever", refused(next)],
  ["a new client works, and its task ran once", ran.filter((id) => id === afresh.id).length === 1],
];
for (const [name, ok] of checks) console.log(`${ok ? "PASS" : "FAIL"}  Prisma 6.19 on SQLite: ${name}`);
const failures = checks.filter(([, ok]) => !ok).length;
console.log(`Prisma 6.19 compat (SQLite): ${checks.length - failures} of ${checks.length} checks passed`);
process.exit(failures === 0 ? 0 : 1);
