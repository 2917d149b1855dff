// Prisma 6.19 compat check on SQLite (@prisma/adapter-better-sqlite3 6.19, whose transactions behave as 7's): a
// transaction whose COMMIT fails on a deferred foreign key runs nothing, an enqueue issued while it was open returns only
// a committed row, which runs, and the client works for the next transaction. Exits 1 on any miss.

import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import Database from "better-sqlite3";
import { createWorker, defineTasks, silentLogger, taskQueue } from "prisma-task-queue";
import { z } from "zod";
import { PrismaClient } from "./generated-sqlite/client.js";

const file = process.env.SQLITE_FILE!;
const url = `file:${file}`;
const ran: string[] = [];
const tasks = defineTasks<PrismaClient>()({
  hello: { payload: z.object({ n: z.number() }), handler: async (_payload, ctx) => void ran.push(ctx.task.id) },
});
const base = new PrismaClient({ adapter: new PrismaBetterSqlite3({ url }) });
const prisma = base.$extends(taskQueue({ tasks, logger: silentLogger }));
const worker = createWorker({ tasks, databaseUrl: url, logger: silentLogger, pollIntervalMs: 50 });
await worker.start();

await prisma.$executeRawUnsafe(`CREATE TABLE guard (ref TEXT REFERENCES reports(id) DEFERRABLE INITIALLY DEFERRED)`);
let doomed = "";
let during: Promise<string | undefined> | undefined;
const failed = await prisma
  .$transaction(async (tx) => {
    doomed = (await tx.task.enqueue("hello", { n: 1 })).id;
    during = prisma.task.enqueue("hello", { n: 2 }).then(
      (task) => task.id,
      () => undefined,
    );
    await tx.$executeRawUnsafe(`INSERT INTO guard VALUES ('no-such-report')`);
  })
  .then(
    () => false,
    () => true,
  );
const duringId = await during;
const after = await prisma.$transaction(async (tx) => tx.task.enqueue("hello", { n: 3 }));
const deadline = Date.now() + 10_000;
while (!(duringId && ran.includes(duringId) && ran.includes(after.id)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
await worker.stop();
await prisma.$taskQueue.close();
await prisma.$disconnect();
const sql = new Database(file, { readonly: true });
const rows = sql.prepare("SELECT id, status FROM tasks").all() as Array<{ id: string; status: string }>;
sql.close();

const checks: Array<[string, boolean]> = [
  ["a COMMIT failing on a deferred foreign key rejects the transaction", failed],
  ["its task has no row and never ran", doomed !== "" && !rows.some((row) => row.id === doomed) && !ran.includes(doomed)],
  ["an enqueue issued while it was open returned a committed row, which ran once", duringId !== undefined && ran.filter((id) => id === duringId).length === 1],
  ["the next transaction works and its task ran once", ran.filter((id) => id === after.id).length === 1],
];
for (const [name, ok] of checks) console.log(`${ok ? "PASS" : "FAIL"}  Prisma 6.19 on SQLite: ${name}`);
const failures = checks.filter(([, ok]) => !ok).length;
console.log(`Prisma 6.19 compat (SQLite): ${checks.length - failures} of ${checks.length} checks passed`);
process.exit(failures === 0 ? 0 : 1);
