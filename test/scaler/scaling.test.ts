// The scaling signal under load, on every dialect: tasks arrive faster than one worker completes them, the signal says
// so and asks for more workers; the test (never the product) starts them, and the signal settles. Successes delete
// their rows, so the rates come from the tallies. Every wait is on what the database shows.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTasks, queueSignals, type QueueSignal, type Worker } from "../../src/index.js";
import { sleep } from "../fixtures/worker-tasks.js";
import { waitUntil } from "../support/wait.js";
import { recordingLogger, WORKER_DIALECTS, WorkerTestBed } from "../worker/harness.js";

/** Each task's handler runs this long: one worker of CONCURRENCY completes CONCURRENCY / 0.05 = 40 tasks a second. */
const RUN_MS = 50;
const CONCURRENCY = 2;
/** Tasks enqueued per tick of the load: 3 every 50 ms, about 60 a second, one and a half workers' worth. */
const PER_TICK = 3;
const TICK_MS = 50;
const HEADROOM = 1.2;
const SIGNAL = { windowSeconds: 5, processingWindowSeconds: 10, drainSeconds: 10, headroom: HEADROOM, concurrency: CONCURRENCY } as const;

const tasks = defineTasks({
  work: {
    payload: z.object({ n: z.number() }),
    handler: async () => {
      await sleep(RUN_MS);
    },
  },
});

/** PTQ_SIGNAL=1 prints the signals the test read. */
function report(phase: string, ...signals: QueueSignal[]): void {
  if (process.env.PTQ_SIGNAL) console.log(phase, JSON.stringify(signals));
}

describe.each(WORKER_DIALECTS)("the scaling signal under load ($name)", (dialect) => {
  let bed: WorkerTestBed;
  let prisma: ReturnType<WorkerTestBed["prisma"]>;
  const workers: Worker[] = [];
  let load: ReturnType<typeof setInterval> | undefined;
  let enqueuing: Promise<unknown> = Promise.resolve();

  beforeAll(async () => {
    bed = await WorkerTestBed.create(dialect);
    prisma = bed.prisma(tasks);
  });

  afterAll(async () => {
    clearInterval(load);
    await enqueuing;
    await bed?.closeAll();
  });

  const signal = async (): Promise<QueueSignal> => {
    const found = (await queueSignals(bed.store, SIGNAL)).find((row) => row.queue === "default");
    if (!found) throw new Error("no signal for the default queue");
    return found;
  };
  const backlog = async () => (await bed.store.pendingAges()).find((row) => row.queue === "default")?.due ?? 0;
  /** Tasks whose enqueue has committed. */
  let enqueued = 0;
  let n = 0;

  const startWorker = async () => {
    const worker = await bed.startWorker({
      tasks,
      concurrency: CONCURRENCY,
      deleteOnSuccess: true,
      workerId: `scaled-${workers.length + 1}`,
      logger: recordingLogger(),
    });
    workers.push(worker);
  };

  it("asks for more workers while one falls behind, and settles once the test has started them", { timeout: 60_000 }, async () => {
    await startWorker();
    load = setInterval(() => {
      const items = Array.from({ length: PER_TICK }, () => ({ name: "work" as const, payload: { n: n++ } }));
      enqueuing = Promise.all([enqueuing, prisma.task.enqueueMany(items).then(() => (enqueued += items.length))]);
    }, TICK_MS);

    // Behind: the backlog grows past what one worker holds, and the tallies cover a whole slot.
    await waitUntil(async () => (await backlog()) >= 60 && (await signal()).arrivalRate !== null, "a backlog of 60 with a known signal", 20_000);
    const first = await signal();
    const seen = enqueued;
    await waitUntil(() => enqueued >= seen + 60, "60 more tasks enqueued", 20_000);
    const second = await signal();
    report("behind", first, second);
    expect(second.arrivalRate!).toBeGreaterThan(second.completionRate!);
    expect(second.backlog).toBeGreaterThan(first.backlog);
    expect(second.meanProcessingSeconds!).toBeGreaterThanOrEqual(RUN_MS / 1000);
    expect(second.recommendedWorkers!).toBeGreaterThan(1);

    // The test scales: as many workers as the signal asks for (at most 4, what this machine's test can hold).
    const wanted = Math.min(4, second.recommendedWorkers!);
    while (workers.length < wanted) await startWorker();

    // Caught up: the backlog drains, and a whole window passes with the workers keeping up.
    await waitUntil(async () => (await backlog()) <= 10, "the backlog to drain", 30_000);
    const caughtUp = enqueued;
    await waitUntil(() => enqueued >= caughtUp + 600, "600 tasks more, beyond the window", 30_000);
    const settled = await signal();
    const again = await signal();
    report(`settled with ${workers.length} workers`, settled, again);
    expect(settled.backlog).toBeLessThan(second.backlog);
    expect(settled.completionRate!).toBeGreaterThan(settled.arrivalRate! * 0.75);
    expect(settled.completionRate!).toBeLessThan(settled.arrivalRate! * 1.25);
    // Workers that keep up are busy at most all the time, so the steady need is at most the workers running; the
    // recommendation adds its headroom on top (a loaded machine stretches each run and uses more of it).
    expect(settled.recommendedWorkers!).toBeLessThanOrEqual(Math.ceil(workers.length * HEADROOM));
    expect(Math.abs(again.recommendedWorkers! - settled.recommendedWorkers!)).toBeLessThanOrEqual(1);
    clearInterval(load);
    await enqueuing;
  });
});
