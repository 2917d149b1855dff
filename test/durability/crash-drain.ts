// One crash of the database in the middle of a drain, and the checks of every guarantee afterwards. The server is the
// test's own (test/support/own-*-server.ts); the worker and the cleaner run in this process and reconnect by themselves.
// Every wait is on what the database shows (a count of succeeded rows), never on a sleep.

import { z } from "zod";
import { createCleaner, createWorker, defineTasks, openStore, silentLogger, taskQueue, type Logger, type Store, type WorkerOptions } from "../../src/index.js";
import { prepared, sendInsert } from "../conformance/store/bed.js";
import { waitUntil } from "../support/wait.js";

/** One run of a handler, on this process's clock. */
interface Run {
  attempt: number;
  start: number;
  end?: number;
  /** How the worker said the run ended: its success committed, its failure recorded, or its lease gone. */
  outcome?: "acked" | "failed" | "lease-lost";
  /** When the outcome was told, on this process's clock. */
  outcomeAt?: number;
}

/** What happened to the tasks of one drain with a crash. */
export interface CrashReport {
  tasks: number;
  /** Succeeded rows when the crash came, and how fast the drain went in the second before (tasks/s). */
  succeededAtCrash: number;
  drainRate: number;
  /** Completions the worker had been told were committed before the crash. */
  ackedBeforeCrash: number;
  /** Tasks that ran again after a run whose success had been committed: completions the crash undid. */
  lostCompletions: number;
  /** How long before the crash began the earliest undone success had been committed, in ms (0: none undone). */
  lostWindowMs: number;
  /** Tasks that ran more than once. */
  reran: string[];
  /** Tasks that ran again after a run whose failure was recorded (a transactional run the crash broke). */
  afterFailure: string[];
  /** Tasks that ran again after a run that lost its lease (a lost claim, or a lease that expired). */
  afterLeaseLoss: string[];
  /** Tasks that ran again after a run that ended without any outcome (should be empty). */
  unexplainedReruns: string[];
  /** Tasks two of whose runs overlapped in time. */
  overlapping: string[];
  /** Tasks not succeeded at the end. */
  unfinished: string[];
  /** Transactional tasks whose effect row is not there exactly once. */
  wrongEffects: string[];
  /** How long the server was down, in ms. */
  downMs: number;
}

/** What the drain needs of a server of the test's own. */
export interface CrashableServer {
  /** The URL of a fresh database with the task table and the effects table. */
  freshDatabase(): Promise<string>;
  /** Kills the server mid-write, then starts it again; resolves once it accepts connections. */
  crashAndRestart(): Promise<void>;
  /**
   * From now until the crash, keeps what the server has not flushed in its memory only (PostgreSQL: the WAL writer
   * frozen), so that the crash loses what a power cut would. Absent: the crash is a plain kill of the server.
   */
  holdUnflushed?(): Promise<void>;
  /** Counts rows through a connection of the test's own: `select count(*) as n from …`. */
  count(url: string, sql: string): Promise<number>;
  /** The dialect's Prisma client on `url`, with the effects table (a business table without a unique key). */
  prisma(url: string): { $disconnect(): Promise<void>; $extends: (extension: unknown) => unknown };
}

/** The effect of a transactional run: one row per commit, no unique key, so a second commit would show. */
export const EFFECTS_TABLE = "crash_effects";

/** Runs `total` tasks (one in `transactionalEvery` transactional) through a worker, crashing the server once `crashAfter` succeeded. */
export async function drainWithCrash(
  server: CrashableServer,
  options: {
    total: number;
    crashAfter: number;
    transactionalEvery: number;
    worker: Partial<WorkerOptions>;
    leaseMs: number;
    timeoutMs: number;
    /** Crash as a power cut would (holdUnflushed) rather than as a kill of the server. */
    powerCut?: boolean;
  },
): Promise<CrashReport> {
  const url = await server.freshDatabase();
  const runs = new Map<string, Run[]>();
  const startRun = (id: string, attempt: number): Run => {
    const run: Run = { attempt, start: performance.now() };
    runs.set(id, [...(runs.get(id) ?? []), run]);
    return run;
  };
  const tasks = defineTasks()({
    plain: {
      payload: z.object({ n: z.number() }),
      maxAttempts: 50,
      backoff: { baseMs: 10, maxMs: 10 },
      handler: async (_payload, ctx) => {
        const run = startRun(ctx.task.id, ctx.attempt);
        await new Promise((resolve) => setImmediate(resolve));
        run.end = performance.now();
      },
    },
    effect: {
      payload: z.object({ n: z.number() }),
      transactional: true,
      maxAttempts: 50,
      backoff: { baseMs: 10, maxMs: 10 },
      handler: async (_payload, ctx) => {
        const run = startRun(ctx.task.id, ctx.attempt);
        const tx = ctx.tx as { $executeRawUnsafe(sql: string, ...values: unknown[]): Promise<number> };
        try {
          await tx.$executeRawUnsafe(`INSERT INTO ${EFFECTS_TABLE} (task_id) VALUES (${placeholder(url)})`, ctx.task.id);
        } finally {
          run.end = performance.now();
        }
      },
    },
  });
  let acked = 0;
  const ended = (fields: Record<string, unknown> | undefined, outcome: Run["outcome"]) => {
    // Outcomes are written one statement at a time, so they come in the order the runs ended: the earliest run without
    // one is the run this outcome is of (a lost claim's run and the run of its second claim have the same attempt).
    const run = typeof fields?.taskId === "string" ? runs.get(fields.taskId)?.find((candidate) => candidate.outcome === undefined) : undefined;
    if (run) Object.assign(run, { outcome, outcomeAt: performance.now() });
    if (outcome === "acked") acked += 1;
  };
  const logger: Logger = {
    ...silentLogger,
    info: (message, fields) => {
      if (message === "task succeeded") ended(fields, "acked");
      // A write retried after its connection dropped that then found nothing to change: committed, or the lease lost.
      if (message.startsWith("task outcome not written again")) ended(fields, "lease-lost");
    },
    warn: (message, fields) => {
      if (message.startsWith("task failed")) ended(fields, "failed");
      if (message.includes("lease")) ended(fields, "lease-lost");
      if (process.env.PTQ_DEBUG) console.error(message, fields);
    },
    error: (message, fields) => {
      if (message === "task dead") ended(fields, "failed");
      if (process.env.PTQ_DEBUG) console.error(message, fields);
    },
  };
  const base = server.prisma(url);
  const prisma = base.$extends(taskQueue({ tasks, wakeups: "polling", logger: silentLogger }));
  const store: Store = openStore(url, { max: 2 });
  const ids: string[] = [];
  const closers: Array<() => Promise<void>> = [() => base.$disconnect(), () => store.close()];
  try {
    for (let from = 0; from < options.total; from += 1000) {
      const rows = Array.from({ length: Math.min(1000, options.total - from) }, (_, i) => {
        const n = from + i;
        // Transactional tasks first (priority 1): their durable commits would flush the WAL of the completions around
        // them, so the crash, after a third of the tasks, meets the plain tasks' completions alone.
        const effect = n % options.transactionalEvery === 0;
        return prepared({ name: effect ? "effect" : "plain", payload: { n }, maxAttempts: 50, priority: effect ? 1 : 0 });
      });
      await sendInsert(store, rows, true);
      ids.push(...rows.map((row) => row.id));
    }
    const cleaner = createCleaner({ tasks, databaseUrl: url, wakeups: "polling", intervalMs: 100, logger: silentLogger });
    const worker = createWorker({
      tasks,
      databaseUrl: url,
      prisma,
      wakeups: "polling",
      pollIntervalMs: 20,
      leaseMs: options.leaseMs,
      concurrency: 10,
      logger,
      ...options.worker,
    });
    closers.unshift(() => cleaner.stop());
    closers.unshift(() => worker.stop());
    const succeeded = () => server.count(url, "SELECT count(*) AS n FROM tasks WHERE status = 'succeeded'");
    await cleaner.start();
    if (options.powerCut) await server.holdUnflushed!();
    const startedAt = performance.now();
    await worker.start();
    let atCrash = 0;
    const seen: Array<{ at: number; count: number }> = [];
    await waitUntil(
      async () => {
        atCrash = await succeeded();
        seen.push({ at: performance.now(), count: atCrash });
        return atCrash >= options.crashAfter;
      },
      `${options.crashAfter} tasks to succeed`,
      options.timeoutMs,
    );
    // The drain's pace over the last second before the crash (or since the start, when shorter).
    const now = seen.at(-1)!;
    const before = seen.find((sample) => sample.at >= now.at - 1000) ?? { at: startedAt, count: 0 };
    const drainRate = (now.count - before.count) / Math.max(0.001, (now.at - before.at) / 1000);
    const ackedBefore = acked;
    const down = performance.now();
    await server.crashAndRestart();
    const downMs = performance.now() - down;
    await waitUntil(async () => (await succeeded()) === options.total, `all ${options.total} tasks to succeed after the restart`, options.timeoutMs);
    await worker.stop();
    await cleaner.stop();
    const effects = new Map<string, number>();
    for (const id of ids.filter((_, n) => n % options.transactionalEvery === 0)) {
      effects.set(id, await server.count(url, `SELECT count(*) AS n FROM ${EFFECTS_TABLE} WHERE task_id = '${id}'`));
    }
    const reran = ids.filter((id) => (runs.get(id)?.length ?? 0) > 1);
    /** The task ran again after an earlier run ended as `outcome`. */
    const after = (id: string, outcome: Run["outcome"]) =>
      runs
        .get(id)!
        .slice(0, -1)
        .some((run) => run.outcome === outcome);
    const undone = ids.flatMap((id) =>
      (runs.get(id) ?? [])
        .slice(0, -1)
        .filter((run) => run.outcome === "acked")
        .map((run) => run.outcomeAt!),
    );
    return {
      tasks: options.total,
      lostWindowMs: undone.length === 0 ? 0 : down - Math.min(...undone),
      succeededAtCrash: atCrash,
      drainRate,
      ackedBeforeCrash: ackedBefore,
      lostCompletions: reran.filter((id) => after(id, "acked")).length,
      reran,
      afterFailure: reran.filter((id) => after(id, "failed")),
      afterLeaseLoss: reran.filter((id) => after(id, "lease-lost")),
      unexplainedReruns: reran.filter((id) =>
        runs
          .get(id)!
          .slice(0, -1)
          .some((run) => run.outcome === undefined),
      ),
      overlapping: ids.filter((id) => overlaps(runs.get(id) ?? [])),
      unfinished: (await Promise.all(ids.map(async (id) => ((await store.findTask(id))?.status === "succeeded" ? undefined : id)))).filter((id): id is string => !!id),
      wrongEffects: [...effects].filter(([, count]) => count !== 1).map(([id]) => id),
      downMs,
    };
  } finally {
    for (const close of closers) await close().catch(() => {});
  }
}

/** True when two runs overlap: one started before an earlier one ended (or one never ended). */
function overlaps(runs: readonly Run[]): boolean {
  const sorted = [...runs].sort((a, b) => a.start - b.start);
  return sorted.some((run, i) => i > 0 && (sorted[i - 1]!.end === undefined || run.start < sorted[i - 1]!.end!));
}

/** The first positional parameter of the dialect of `url`. */
function placeholder(url: string): string {
  return url.startsWith("postgres") ? "$1::uuid" : "?";
}
