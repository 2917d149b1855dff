// The worker side of prisma-task-queue in a benchmark child: createWorker() with the no-op task, silent logs.
// BENCH_OURS_WORKER_OPTIONS (JSON) adds worker options, to measure settings (e.g. a proposed claimAhead) without edits.
// BENCH_TRACE_DIR (set by bench/trace-latency.ts) records the worker's trace points and store operations there.
// BENCH_PG_DRIVER=postgres (or postgres-pipelined) runs the worker's own PostgreSQL sessions over postgres.js instead
// of pg (bench/postgresjs-db.ts), to compare the drivers; unset or "pg": the store the worker opens itself.

import { openStore, silentLogger, type Store } from "../../src/index.js";
import { createWorker, type WorkerOptions } from "../../src/worker/create-worker.js";
import { WORKER_POOL } from "../../src/worker/task-worker.js";
import { TraceRecorder } from "../trace/recorder.js";
import { benchTasks } from "./ours-tasks.js";
import type { WorkerHandle, WorkerStart } from "./peer.js";

/** The worker's leaseMs when the options leave it out. */
const DEFAULT_LEASE_MS = 30_000;

export async function startWorker({ target, concurrency, onRun }: WorkerStart): Promise<WorkerHandle> {
  const extra = JSON.parse(process.env.BENCH_OURS_WORKER_OPTIONS ?? "{}") as Partial<WorkerOptions>;
  const traceDir = process.env.BENCH_TRACE_DIR;
  const driver = process.env.BENCH_PG_DRIVER ?? "pg";
  const recorder = traceDir ? new TraceRecorder() : undefined;
  // Traced: the store the worker would open itself (its own pool settings), with its operations timed.
  const store = recorder ? recorder.wrapStore(await openWorkerStore(target.databaseUrl)) : driver === "pg" ? undefined : await openWorkerStore(target.databaseUrl);
  const leaseMs = extra.leaseMs ?? DEFAULT_LEASE_MS;
  const started = (n: number, id: string, leaseExpiresAtMs: number) => {
    recorder?.handlerStarted(n, id);
    onRun(n, leaseExpiresAtMs - leaseMs);
  };
  const worker = createWorker({
    tasks: benchTasks(started),
    databaseUrl: target.databaseUrl,
    store,
    amqpUrl: target.amqpUrl,
    amqpPrefix: target.prefix,
    concurrency,
    logger: silentLogger,
    ...extra,
  });
  await worker.start();
  return {
    stop: async () => {
      await worker.stop();
      recorder?.save(`${traceDir}/worker-${process.pid}.json`);
      await store?.close();
    },
  };
}

/** The store the worker would open itself, on the driver BENCH_PG_DRIVER names (postgres.js loaded only when named). */
async function openWorkerStore(databaseUrl: string): Promise<Store> {
  const driver = process.env.BENCH_PG_DRIVER ?? "pg";
  if (driver === "pg") return openStore(databaseUrl, WORKER_POOL);
  if (driver !== "postgres" && driver !== "postgres-pipelined") throw new Error(`BENCH_PG_DRIVER: pg, postgres or postgres-pipelined, not ${driver}`);
  const { postgresJsStore } = await import("../postgresjs-db.js");
  return postgresJsStore(databaseUrl, { ...WORKER_POOL, transactions: driver === "postgres" ? "begin" : "pipelined" });
}
