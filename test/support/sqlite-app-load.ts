// An app on a SQLite file under load, as a new user would run it: the app's client with a worker and a cleaner in its
// own process, two worker processes beside it, handlers that write through a client of their own, and many concurrent
// interactive transactions that each create a business row and enqueue its task, one in five rolled back, after a
// transaction whose COMMIT failed on a deferred foreign key. Woken through RabbitMQ, the local sockets, or in-process
// only (no worker processes). Used by the SQLite tests and the write-wait bench.

import { createCleaner, createWorker, silentLogger, taskQueue } from "../../src/index.js";
import { appLoadTasks, type HandlerWrite } from "../sqlite/fixtures/app-load-tasks.js";
import { uniquePrefix } from "./broker.js";
import { createSqliteDatabase, sqlitePrisma } from "./sqlite.js";
import { waitUntil } from "./wait.js";
import { WorkerProcess } from "./worker-process.js";

export type AppLoadWakeups = "rabbitmq" | "sockets" | "in-process";

export interface AppLoadResult {
  committed: number;
  rolledBack: number;
  /** Committed tasks not succeeded when the wait ended. */
  unfinished: number;
  /** Tasks whose row holds a rolled-back transaction's report id: must be 0. */
  rolledBackTasks: number;
  /** Tasks that needed more than one attempt. */
  retried: number;
  /** Every handler write, in every process. */
  writes: HandlerWrite[];
  /** From the first transaction to the last task succeeded (or the end of the wait). */
  elapsedMs: number;
}

interface Row {
  status: string;
  attempts: number | bigint;
  payload: string | { reportId: string };
}

/** Runs the scenario; waits at most `waitMs` for every committed task to succeed. */
export async function runAppLoad(options: { wakeups: AppLoadWakeups; amqpUrl?: string; transactions?: number; waitMs?: number }): Promise<AppLoadResult> {
  const transactions = options.transactions ?? 200;
  const amqpUrl = options.wakeups === "rabbitmq" ? options.amqpUrl : undefined;
  const prefix = uniquePrefix();
  const database = await createSqliteDatabase();
  const writes: HandlerWrite[] = [];
  const closers: Array<() => Promise<unknown>> = [async () => database.drop()];
  const processes: WorkerProcess[] = [];
  try {
    const base = sqlitePrisma(database.url, { timeout: 5000 });
    closers.unshift(() => base.$disconnect());
    await base.$executeRawUnsafe(`CREATE TABLE guard (ref TEXT REFERENCES reports(id) DEFERRABLE INITIALLY DEFERRED)`);
    const handlers = appLoadTasks(database.url, (write) => writes.push(write));
    closers.unshift(handlers.close);
    const common = { tasks: handlers.tasks, amqpUrl, amqpPrefix: prefix, logger: silentLogger };
    const prisma = base.$extends(taskQueue(common)) as unknown as AppClient;
    closers.unshift(() => prisma.$taskQueue.close());
    const worker = createWorker({ ...common, databaseUrl: database.url, concurrency: 8, pollIntervalMs: 250, leaseMs: 3000 });
    const cleaner = createCleaner({ ...common, databaseUrl: database.url, intervalMs: 500 });
    await worker.start();
    closers.unshift(() => worker.stop());
    await cleaner.start();
    closers.unshift(() => cleaner.stop());
    if (options.wakeups !== "in-process") {
      const env = { DATABASE_URL: database.url, AMQP_URL: amqpUrl ?? "", PTQ_PREFIX: prefix };
      for (let i = 0; i < 2; i++) processes.push(await WorkerProcess.start(env, "test/sqlite/fixtures/app-load-worker.ts"));
    }

    // A COMMIT that fails on a deferred foreign key, on the same client, before the load.
    await prisma
      .$transaction(async (tx) => {
        await tx.task.enqueue("record", { reportId: "never-committed" });
        await tx.$executeRawUnsafe(`INSERT INTO guard (ref) VALUES ('missing')`);
      })
      .then(
        () => {
          throw new Error("the COMMIT with a deferred foreign key violation succeeded");
        },
        () => undefined,
      );

    const started = performance.now();
    const outcomes = await Promise.allSettled(
      Array.from({ length: transactions }, (_, i) =>
        prisma.$transaction(async (tx) => {
          const report = await tx.report.create({ data: {} });
          await tx.task.enqueue("record", { reportId: report.id });
          if (i % 5 === 4) throw new RolledBack(report.id);
          return report.id;
        }),
      ),
    );
    const committed = outcomes.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value] : []));
    const unexpected = outcomes.flatMap((outcome) => (outcome.status === "rejected" && !(outcome.reason instanceof RolledBack) ? [outcome.reason as Error] : []));
    if (unexpected.length > 0) throw new Error(`a transaction failed: ${unexpected[0]!.message}`);
    const rolledBack = new Set(outcomes.flatMap((outcome) => (outcome.status === "rejected" ? [(outcome.reason as RolledBack).reportId] : [])));

    const tasks = () => base.$queryRawUnsafe<Row[]>(`SELECT status, attempts, payload FROM tasks`);
    let elapsedMs = 0;
    await waitUntil(
      async () => {
        const rows = await tasks();
        const done = rows.filter((row) => row.status === "succeeded").length >= committed.length;
        elapsedMs = performance.now() - started;
        return done;
      },
      `${committed.length} committed tasks to succeed`,
      options.waitMs ?? 60_000,
    ).catch(() => undefined);
    const rows = await tasks();
    for (const worker of processes) {
      worker.signal("SIGTERM");
      await worker.exited;
    }
    for (const worker of processes) {
      for (const line of worker.lines)
        if (line.message === "handler write") writes.push({ ms: line.ms as number, ...(typeof line.error === "string" && { error: line.error }) });
    }
    const reportOf = (row: Row) => (typeof row.payload === "string" ? (JSON.parse(row.payload) as { reportId: string }) : row.payload).reportId;
    return {
      committed: committed.length,
      rolledBack: rolledBack.size,
      unfinished: committed.length - rows.filter((row) => row.status === "succeeded").length,
      rolledBackTasks: rows.filter((row) => rolledBack.has(reportOf(row)) || reportOf(row) === "never-committed").length,
      retried: rows.filter((row) => Number(row.attempts) > 1).length,
      writes,
      elapsedMs,
    };
  } finally {
    for (const worker of processes) await worker.kill();
    for (const close of closers) await close();
  }
}

class RolledBack extends Error {
  constructor(readonly reportId: string) {
    super("rolled back on purpose");
  }
}

type Tx = {
  report: { create(args: { data: object }): Promise<{ id: string }> };
  task: { enqueue(name: "record", payload: { reportId: string }): Promise<unknown> };
  $executeRawUnsafe(sql: string): Promise<number>;
};
type AppClient = {
  $transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  $taskQueue: { close(): Promise<void> };
};
