// OpenTelemetry on every dialect, with the SDK and in-memory exporters: the enqueue's send span in the app's trace and
// its context stored with the task; a process span per run linked (not parented) to it, across retries, into the
// dead letter and after a lease recovery; the handler's spans nested in the run; the cleaner's spans; the metrics'
// values; and the run's log lines carrying the task and the trace.

import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createCleaner, createWorker, defineTasks, silentLogger, taskQueue, type Logger, type Worker } from "../../src/index.js";
import { parseTraceContext } from "../../src/telemetry/trace-context.js";
import { ConformanceBed, type DialectHarness } from "../conformance/harness.js";
import { mysqlHarness, postgresHarness, sqliteHarness } from "../conformance/dialects.js";
import { waitUntil } from "../support/wait.js";
import { OtelHarness } from "./otel-harness.js";

const otel = new OtelHarness();
const appTracer = trace.getTracer("the-app");
const lines: Array<{ message: string; fields: Record<string, unknown> }> = [];
const capture: Logger = {
  debug() {},
  info: (message, fields = {}) => void lines.push({ message, fields }),
  warn: (message, fields = {}) => void lines.push({ message, fields }),
  error: (message, fields = {}) => void lines.push({ message, fields }),
};

const tasks = defineTasks({
  ok: {
    payload: z.object({}),
    handler: async (_payload, ctx) => {
      await appTracer.startActiveSpan("handler work", async (span) => {
        ctx.logger.info("handler says hello");
        await new Promise((resolve) => setImmediate(resolve));
        span.end();
      });
    },
  },
  held: {
    payload: z.object({}),
    // Runs until the worker shuts down and aborts it.
    handler: (_payload, ctx) => new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve())),
  },
  stepped: {
    payload: z.object({}),
    handler: async (_payload, ctx) => {
      await ctx.step.run("first", () => 1);
      // The first run sleeps (its run ends, suspended); the second replays "first" and "nap", then runs "second".
      await ctx.step.sleep("nap", 50);
      return ctx.step.run("second", () => 2);
    },
  },
  flaky: {
    payload: z.object({}),
    maxAttempts: 3,
    backoff: { baseMs: 0, jitter: 0 },
    handler: async () => {
      throw new TypeError("always fails");
    },
  },
});

type Client = {
  task: {
    enqueue(name: string, payload: unknown): Promise<{ id: string }>;
    enqueueMany(items: Array<{ name: string; payload: unknown }>): Promise<Array<{ id: string }>>;
  };
  $transaction(items: unknown[]): Promise<unknown[]>;
  $executeRawUnsafe(sql: string): Promise<number>;
  $taskQueue: { close(): Promise<void> };
  $disconnect(): Promise<void>;
};

beforeAll(() => void otel.install());
afterAll(() => otel.uninstall());

/** The only span named `name`, after it ended. */
async function one(name: string): Promise<ReadableSpan> {
  await waitUntil(() => otel.named(name).length > 0, `a span named ${name}`);
  expect(otel.named(name)).toHaveLength(1);
  return otel.named(name)[0]!;
}

function linkedTo(span: ReadableSpan): string[] {
  return span.links.map((link) => link.context.spanId);
}

for (const harness of [postgresHarness, sqliteHarness, mysqlHarness] as DialectHarness[]) {
  describe(`OpenTelemetry on ${harness.name}`, () => {
    let bed: ConformanceBed;
    let prisma: Client;
    let worker: Worker | undefined;
    const transport = harness.amqpUrl ? "rabbitmq" : "in-process";

    beforeAll(async () => {
      bed = await ConformanceBed.open(harness);
      prisma = harness
        .prismaClient(bed.url)
        .$extends(taskQueue({ tasks, amqpUrl: bed.amqpUrl, amqpPrefix: bed.prefix, wakeups: harness.wakeups, logger: silentLogger })) as Client;
    }, 60_000);

    afterAll(async () => {
      await prisma?.$taskQueue.close();
      await prisma?.$disconnect();
      await bed?.close();
    });

    beforeEach(async () => {
      await otel.reset();
      lines.splice(0);
    });

    afterEach(async () => {
      await worker?.stop();
      worker = undefined;
    });

    /** A worker on a store of its own (not the app's client): the link comes from the stored row alone. */
    async function startWorker(shutdownGraceMs?: number): Promise<Worker> {
      worker = createWorker({
        tasks,
        databaseUrl: bed.url,
        amqpUrl: bed.amqpUrl,
        amqpPrefix: bed.prefix,
        wakeups: harness.wakeups,
        logger: capture,
        pollIntervalMs: 50,
        ...(shutdownGraceMs !== undefined && { shutdownGraceMs }),
      });
      await worker.start();
      return worker;
    }

    it("a workflow's steps each have a span under their run's span, saying whether the run recorded, replayed or suspended on them", async () => {
      await startWorker();
      const task = await prisma.task.enqueue("stepped", {});
      await waitUntil(() => otel.named("step second").length > 0, "the last step's span");
      await waitUntil(() => otel.named("process default").filter((span) => span.attributes["messaging.message.id"] === task.id).length === 2, "both runs' spans");
      const [first, second] = otel
        .named("process default")
        .filter((span) => span.attributes["messaging.message.id"] === task.id)
        .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
      expect(first!.attributes["prisma_task_queue.task.outcome"]).toBe("suspended");
      expect(second!.attributes["prisma_task_queue.task.outcome"]).toBe("succeeded");
      const steps = (run: ReadableSpan) =>
        otel.spans
          .getFinishedSpans()
          .filter((span) => span.parentSpanContext?.spanId === run.spanContext().spanId)
          .map((span) => [
            span.name,
            span.attributes["prisma_task_queue.step.kind"],
            span.attributes["prisma_task_queue.step.seq"],
            span.attributes["prisma_task_queue.step.outcome"],
          ]);
      expect(steps(first!)).toEqual([
        ["step first", "run", 1, "recorded"],
        ["step nap", "sleep", 2, "suspended"],
      ]);
      expect(steps(second!)).toEqual([
        ["step first", "run", 1, "replayed"],
        ["step nap", "sleep", 2, "replayed"],
        ["step second", "run", 3, "recorded"],
      ]);
    });

    it("an enqueue in the app's span makes a send span there and stores its context; the run's process span links to it, the handler's spans nest in it, its log lines carry the trace", async () => {
      await startWorker();
      const task = await appTracer.startActiveSpan("app request", async (span) => {
        try {
          return await prisma.task.enqueue("ok", {});
        } finally {
          span.end();
        }
      });
      const request = await one("app request");
      const send = await one("send default");
      expect(send.kind).toBe(SpanKind.PRODUCER);
      expect(send.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
      expect(send.spanContext().traceId).toBe(request.spanContext().traceId);
      expect(send.attributes).toEqual({
        "messaging.system": "prisma_task_queue",
        "messaging.operation.name": "send",
        "messaging.operation.type": "send",
        "messaging.destination.name": "default",
        "messaging.message.id": task.id,
        "prisma_task_queue.task.name": "ok",
        "prisma_task_queue.dialect": harness.store.name,
      });
      const stored = await bed.store.findTask(task.id);
      expect(parseTraceContext(stored?.traceContext)).toMatchObject({ traceId: send.spanContext().traceId, spanId: send.spanContext().spanId });

      const run = await one("process default");
      expect(run.kind).toBe(SpanKind.CONSUMER);
      expect(run.parentSpanContext).toBeUndefined();
      expect(linkedTo(run)).toEqual([send.spanContext().spanId]);
      expect(run.links[0]!.context.traceId).toBe(send.spanContext().traceId);
      expect(run.attributes).toEqual({
        "messaging.system": "prisma_task_queue",
        "messaging.operation.name": "process",
        "messaging.operation.type": "process",
        "messaging.destination.name": "default",
        "messaging.message.id": task.id,
        "prisma_task_queue.task.name": "ok",
        "prisma_task_queue.task.attempt": 1,
        "prisma_task_queue.task.outcome": "succeeded",
        "prisma_task_queue.dialect": harness.store.name,
        "prisma_task_queue.transport": transport,
      });
      expect(run.status.code).toBe(SpanStatusCode.UNSET);
      const work = await one("handler work");
      expect(work.parentSpanContext?.spanId).toBe(run.spanContext().spanId);

      const traced = { taskId: task.id, taskName: "ok", attempt: 1, queue: "default", traceId: run.spanContext().traceId };
      expect(lines.find((line) => line.message === "handler says hello")?.fields).toMatchObject(traced);
      await waitUntil(() => lines.some((line) => line.message === "task succeeded"), "the success's log line");
      expect(lines.find((line) => line.message === "task succeeded")?.fields).toMatchObject(traced);

      expect(await otel.total("messaging.client.sent.messages", { "messaging.destination.name": "default" })).toBe(1);
      expect(await otel.total("messaging.client.consumed.messages", { "prisma_task_queue.task.name": "ok" })).toBe(1);
      const durations = await otel.points("messaging.process.duration");
      expect(durations.map((point) => [point.attributes["prisma_task_queue.task.name"], (point.value as { count: number }).count])).toEqual([["ok", 1]]);
      expect(await otel.total("prisma_task_queue.task.wait.duration")).toBe(1);
      expect(await otel.total("prisma_task_queue.task.failures")).toBe(0);
    });

    it("a failing task: a process span per attempt, each linked to the enqueue, with error.type and an error status; the last one dead; failures and dead counted", async () => {
      const task = await prisma.task.enqueue("flaky", {});
      const send = await one("send default");
      await startWorker();
      await waitUntil(() => otel.named("process default").length === 3, "three runs", 20_000);
      const runs = otel.named("process default");
      expect(runs.map((run) => run.attributes["prisma_task_queue.task.attempt"])).toEqual([1, 2, 3]);
      expect(runs.map((run) => run.attributes["prisma_task_queue.task.outcome"])).toEqual(["retry", "retry", "dead"]);
      for (const run of runs) {
        expect(linkedTo(run)).toEqual([send.spanContext().spanId]);
        expect(run.attributes["messaging.message.id"]).toBe(task.id);
        expect(run.attributes["error.type"]).toBe("TypeError");
        expect(run.status).toEqual({ code: SpanStatusCode.ERROR, message: "always fails" });
      }
      expect(new Set(runs.map((run) => run.spanContext().traceId)).size).toBe(3);
      expect((await bed.store.findTask(task.id))?.status).toBe("dead");
      expect(await otel.total("prisma_task_queue.task.failures", { "prisma_task_queue.task.outcome": "retry", "error.type": "TypeError" })).toBe(2);
      expect(await otel.total("prisma_task_queue.task.failures", { "prisma_task_queue.task.outcome": "dead" })).toBe(1);
      expect(await otel.total("prisma_task_queue.task.dead", { "prisma_task_queue.task.name": "flaky" })).toBe(1);
      expect(await otel.total("messaging.client.consumed.messages", { "error.type": "TypeError" })).toBe(3);
      const dead = lines.find((line) => line.message === "task dead");
      expect(dead?.fields).toMatchObject({ taskId: task.id, taskName: "flaky", attempt: 3, queue: "default", traceId: runs[2]!.spanContext().traceId });
    });

    it("a run after a lease recovery links to the enqueue; the recovery is a cleaner span and a metric", async () => {
      const task = await prisma.task.enqueue("ok", {});
      const send = await one("send default");
      // A worker that claimed the task and died: its lease (1 ms) expires at once, by the database's clock.
      const filter = { owner: "dead-worker", leaseMs: 1, names: ["ok"], queues: ["default"] };
      const [claimed] = await bed.store.claimByIds([task.id], filter);
      expect(claimed?.claimed?.traceContext).toBe((await bed.store.findTask(task.id))?.traceContext);
      const cleaner = createCleaner({ tasks, store: bed.store, amqpUrl: bed.amqpUrl, amqpPrefix: bed.prefix, wakeups: harness.wakeups, logger: silentLogger });
      try {
        await waitUntil(async () => (await cleaner.runOnce(), (await bed.store.findTask(task.id))?.status === "pending"), "the cleaner to recover the lease");
      } finally {
        await cleaner.stop();
      }
      const recovery = await one("recover expired leases");
      expect(recovery.kind).toBe(SpanKind.INTERNAL);
      expect(recovery.attributes).toMatchObject({ "messaging.system": "prisma_task_queue", "prisma_task_queue.count": 1, "prisma_task_queue.retried": 1 });
      expect(await otel.total("prisma_task_queue.lease.recoveries", { "prisma_task_queue.task.outcome": "retry", "messaging.destination.name": "default" })).toBe(1);

      await startWorker();
      const run = await one("process default");
      expect(run.attributes["prisma_task_queue.task.attempt"]).toBe(2);
      expect(run.attributes["prisma_task_queue.task.outcome"]).toBe("succeeded");
      expect(linkedTo(run)).toEqual([send.spanContext().spanId]);
    });

    it("across processes: a task enqueued by another process, with its own SDK, runs in a span linked to that process's send span", { timeout: 30_000 }, async () => {
      const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "test/telemetry/enqueue-child.ts"], {
        env: { ...process.env, CHILD_DATABASE_URL: bed.url, CHILD_DIALECT: harness.store.name, CHILD_AMQP_URL: bed.amqpUrl ?? "", CHILD_PREFIX: bed.prefix },
      });
      const sent = JSON.parse(stdout.trim().split("\n").at(-1)!) as { taskId: string; traceId: string; spanId: string };
      expect(otel.named("send default")).toEqual([]);
      await startWorker();
      const run = await one("process default");
      expect(run.attributes["messaging.message.id"]).toBe(sent.taskId);
      expect(run.links.map((link) => [link.context.traceId, link.context.spanId, link.context.isRemote])).toEqual([[sent.traceId, sent.spanId, true]]);
    });

    it("an enqueue in a batch $transaction([...]): its send span ends with the batch, with an error status when the batch fails", async () => {
      const [task] = (await prisma.$transaction([prisma.task.enqueue("ok", {})])) as Array<{ id: string }>;
      const send = await one("send default");
      expect(send.attributes["messaging.message.id"]).toBe(task!.id);
      expect(send.status.code).toBe(SpanStatusCode.UNSET);
      otel.spans.reset();
      await expect(prisma.$transaction([prisma.task.enqueue("ok", {}), prisma.$executeRawUnsafe("SELECT * FROM no_such_table")])).rejects.toThrow();
      const failed = await one("send default");
      expect(failed.status.code).toBe(SpanStatusCode.ERROR);
      expect(failed.attributes["error.type"]).toEqual(expect.any(String));
      // The batch that committed runs here, linked to its span, and leaves nothing for the next case.
      await startWorker();
      const run = await one("process default");
      expect(run.attributes["messaging.message.id"]).toBe(task!.id);
      expect(linkedTo(run)).toEqual([send.spanContext().spanId]);
    });

    it("a run the worker gives back at shutdown ends its span as released, without an error, and counts as no consumed message", async () => {
      const task = await prisma.task.enqueue("held", {});
      const running = await startWorker(1);
      await waitUntil(async () => (await bed.store.findTask(task.id))?.status === "running", "the task to run");
      await running.stop();
      worker = undefined;
      const run = await one("process default");
      expect(run.attributes).toMatchObject({ "messaging.message.id": task.id, "prisma_task_queue.task.outcome": "released" });
      expect(run.attributes["error.type"]).toBeUndefined();
      expect(run.status.code).toBe(SpanStatusCode.UNSET);
      expect((await bed.store.findTask(task.id))?.status).toBe("pending");
      expect(await otel.total("messaging.client.consumed.messages")).toBe(0);
      // Cancelled, so that the next case starts from an empty queue.
      await bed.store.cancelTask(task.id);
    });

    it("a batch: one send span with its message count, stored with every task, each run linked to it", async () => {
      const tasksSent = await appTracer.startActiveSpan("app batch", async (span) => {
        try {
          return await prisma.task.enqueueMany([
            { name: "ok", payload: {} },
            { name: "ok", payload: {} },
            { name: "ok", payload: {} },
          ]);
        } finally {
          span.end();
        }
      });
      const send = await one("send default");
      expect(send.attributes).toMatchObject({ "messaging.batch.message_count": 3, "messaging.destination.name": "default", "prisma_task_queue.task.name": "ok" });
      expect(send.attributes["messaging.message.id"]).toBeUndefined();
      await startWorker();
      await waitUntil(() => otel.named("process default").length === 3, "three runs");
      const runs = otel.named("process default");
      expect(runs.map((run) => run.attributes["messaging.message.id"]).sort()).toEqual(tasksSent.map((task) => task.id).sort());
      for (const run of runs) expect(linkedTo(run)).toEqual([send.spanContext().spanId]);
      expect(await otel.total("messaging.client.sent.messages")).toBe(3);
    });
  });
}
