// What one run reports with the SDK registered, without a database: its process span with every attribute
// docs/observability.md lists and the link to the task's stored context, and every run metric with exactly the
// documented attributes, for each outcome. Runs of one kind of task share their metric series; consecutive tasks that
// store the same context, another one or none each link to their own.

import { SpanKind, SpanStatusCode, trace, type Attributes } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TaskRecord } from "../../src/store/task-record.js";
import { telemetry } from "../../src/telemetry/telemetry.js";
import type { RunOutcome } from "../../src/telemetry/telemetry-events.js";
import { formatTraceContext, type TraceIds } from "../../src/telemetry/trace-context.js";
import { OtelHarness } from "./otel-harness.js";

const harness = new OtelHarness();
const place = { dialect: "postgresql", transport: "rabbitmq" };
const enqueue: TraceIds = { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", traceFlags: 1 };
const other: TraceIds = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", traceFlags: 0 };

let n = 0;
function task(fields: { queue?: string; name?: string; attempts?: number; traceContext?: string | null } = {}): TaskRecord {
  return {
    id: `run-telemetry-${n++}`,
    name: fields.name ?? "noop",
    queue: fields.queue ?? "default",
    attempts: fields.attempts ?? 1,
    runAt: new Date(Date.now() - 20),
    traceContext: fields.traceContext === undefined ? formatTraceContext(enqueue) : fields.traceContext,
  } as unknown as TaskRecord;
}

/** Runs `record` from its start to `outcome`; its span once ended. */
function run(record: TaskRecord, outcome: RunOutcome, error?: unknown): ReadableSpan {
  const scope = telemetry()!.runStarted(record, place);
  expect(scope).toBeDefined();
  scope!.end(outcome, error);
  const spans = harness.spans.getFinishedSpans().filter((span) => span.attributes["messaging.message.id"] === record.id);
  expect(spans).toHaveLength(1);
  return spans[0]!;
}

/** A metric's series: each point's attributes and its value (a counter's sum, a histogram's count). */
async function series(name: string): Promise<Array<{ attributes: Attributes; value: number }>> {
  return (await harness.points(name)).map((point) => ({ attributes: point.attributes, value: typeof point.value === "number" ? point.value : point.value.count }));
}

/** The attributes of a run's metrics, as docs/observability.md lists them. */
const runAttributes = (queue: string, name: string, more: Attributes = {}): Attributes => ({
  "messaging.system": "prisma_task_queue",
  "messaging.operation.name": "process",
  "messaging.destination.name": queue,
  "prisma_task_queue.task.name": name,
  "prisma_task_queue.dialect": "postgresql",
  "prisma_task_queue.transport": "rabbitmq",
  ...more,
});

describe("a run's telemetry with the SDK registered", () => {
  beforeAll(() => void harness.install());
  afterAll(() => harness.uninstall());
  beforeEach(() => harness.reset());

  it("a success: a root CONSUMER span with every attribute, linked to the stored context with its tracestate", () => {
    const record = task({ attempts: 2, traceContext: formatTraceContext({ ...enqueue, traceState: "ptq=1,other=x" }) });
    const span = run(record, "succeeded");
    expect(span.name).toBe("process default");
    expect(span.kind).toBe(SpanKind.CONSUMER);
    expect(span.parentSpanContext).toBeUndefined();
    expect(span.attributes).toEqual({
      "messaging.system": "prisma_task_queue",
      "messaging.operation.name": "process",
      "messaging.operation.type": "process",
      "messaging.destination.name": "default",
      "messaging.message.id": record.id,
      "prisma_task_queue.task.name": "noop",
      "prisma_task_queue.task.attempt": 2,
      "prisma_task_queue.task.outcome": "succeeded",
      "prisma_task_queue.dialect": "postgresql",
      "prisma_task_queue.transport": "rabbitmq",
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.events).toEqual([]);
    expect(span.links).toHaveLength(1);
    const { traceState, ...link } = span.links[0]!.context;
    expect(link).toEqual({ traceId: enqueue.traceId, spanId: enqueue.spanId, traceFlags: 1, isRemote: true });
    expect(traceState?.serialize()).toBe("ptq=1,other=x");
  });

  it("the handler runs in the run span's context: its spans are the run's children; the run's trace id is its span's", () => {
    const record = task();
    const scope = telemetry()!.runStarted(record, place)!;
    scope.within(() => trace.getTracer("the-app").startSpan("handler work").end());
    const traceId = scope.traceId;
    scope.end("succeeded");
    const [work] = harness.named("handler work");
    const [runSpan] = harness.named("process default");
    expect(work?.parentSpanContext?.spanId).toBe(runSpan?.spanContext().spanId);
    expect(traceId).toBe(runSpan?.spanContext().traceId);
    expect(work?.spanContext().traceId).toBe(traceId);
  });

  it("a failure, a dead run and a lost one: error.type, the exception and an error status on their spans", () => {
    const failed = run(task(), "retry", new TypeError("always fails"));
    expect(failed.attributes).toMatchObject({ "prisma_task_queue.task.outcome": "retry", "error.type": "TypeError" });
    expect(failed.status).toEqual({ code: SpanStatusCode.ERROR, message: "always fails" });
    expect(failed.events.map((event) => event.name)).toEqual(["exception"]);
    const dead = run(task(), "dead", "not an Error");
    expect(dead.attributes).toMatchObject({ "prisma_task_queue.task.outcome": "dead", "error.type": "_OTHER" });
    expect(dead.status.code).toBe(SpanStatusCode.ERROR);
    const lost = run(task(), "lost");
    expect(lost.attributes).toMatchObject({ "prisma_task_queue.task.outcome": "lost", "error.type": "TaskLeaseLostError" });
    expect(lost.status).toEqual({ code: SpanStatusCode.ERROR, message: "lease lost" });
    const released = run(task(), "released");
    expect(released.attributes["prisma_task_queue.task.outcome"]).toBe("released");
    expect(released.attributes["error.type"]).toBeUndefined();
    expect(released.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("every run metric, with exactly the documented attributes, per outcome; runs of one kind add to one series", async () => {
    run(task(), "succeeded");
    run(task(), "succeeded");
    run(task({ queue: "mail", name: "send-mail" }), "succeeded");
    run(task(), "retry", new TypeError("once"));
    run(task(), "retry", new TypeError("twice"));
    run(task(), "dead", new RangeError("used up"));
    run(task(), "lost");
    run(task(), "released");

    const plain = runAttributes("default", "noop");
    const typeError = runAttributes("default", "noop", { "error.type": "TypeError" });
    const rangeError = runAttributes("default", "noop", { "error.type": "RangeError" });
    const lost = runAttributes("default", "noop", { "error.type": "TaskLeaseLostError" });
    const mail = runAttributes("mail", "send-mail");
    // Every run started, the released one too; the wait never carries error.type.
    expect(await series("prisma_task_queue.task.wait.duration")).toEqual(
      expect.arrayContaining([
        { attributes: plain, value: 7 },
        { attributes: mail, value: 1 },
      ]),
    );
    expect(await series("prisma_task_queue.task.wait.duration")).toHaveLength(2);
    // Every run that ended but the released one.
    const ended = [
      { attributes: plain, value: 2 },
      { attributes: mail, value: 1 },
      { attributes: typeError, value: 2 },
      { attributes: rangeError, value: 1 },
      { attributes: lost, value: 1 },
    ];
    for (const name of ["messaging.client.consumed.messages", "messaging.process.duration"]) {
      expect(await series(name), name).toEqual(expect.arrayContaining(ended));
      expect(await series(name), name).toHaveLength(ended.length);
    }
    const failures = [
      { attributes: { ...typeError, "prisma_task_queue.task.outcome": "retry" }, value: 2 },
      { attributes: { ...rangeError, "prisma_task_queue.task.outcome": "dead" }, value: 1 },
    ];
    expect(await series("prisma_task_queue.task.failures")).toEqual(expect.arrayContaining(failures));
    expect(await series("prisma_task_queue.task.failures")).toHaveLength(failures.length);
    expect(await series("prisma_task_queue.task.dead")).toEqual([{ attributes: rangeError, value: 1 }]);
  });

  it("each run links to its own task's stored context, whether the task before stored the same one, another or none", () => {
    const contexts = [enqueue, enqueue, other, null, other, "not json", { ...enqueue, traceState: "ptq=1" }, enqueue];
    const spans = contexts.map((stored) => run(task({ traceContext: stored === null || typeof stored === "string" ? stored : formatTraceContext(stored) }), "succeeded"));
    const links = spans.map((span) =>
      span.links.map((link) => [link.context.traceId, link.context.spanId, link.context.traceFlags, link.context.traceState?.serialize()]),
    );
    const to = (ids: TraceIds) => [[ids.traceId, ids.spanId, ids.traceFlags, ids.traceState]];
    expect(links).toEqual([to(enqueue), to(enqueue), to(other), [], to(other), [], to({ ...enqueue, traceState: "ptq=1" }), to(enqueue)]);
  });
});
