// What one run's telemetry costs in CPU, with no database: the worker's own calls (Telemetry.runStarted and the run's
// end, for a task with a stored trace context) against the floor, the OpenTelemetry SDK doing the same work called
// directly (one span with the same attributes and link, two histogram records and one counter add with the same
// attributes). Both with the SDK of bench/otel-sdk.ts (exporters that drop everything), in one process,
// alternating, many rounds; µs per run, median of the rounds.
// Usage: npx tsx bench/telemetry-floor.ts [--runs=50000] [--rounds=7]

import { metrics, ROOT_CONTEXT, SpanKind, trace } from "@opentelemetry/api";
import type { TaskRecord } from "../src/store/task-record.js";
import { telemetry } from "../src/telemetry/telemetry.js";
import { formatTraceContext } from "../src/telemetry/trace-context.js";
import { registerSdk } from "./otel-sdk.js";

const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const runs = Number(arg("runs", "50000"));
const rounds = Number(arg("rounds", "7"));

registerSdk("on");

const stored = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", traceFlags: 1 };
const task = (n: number): TaskRecord =>
  ({
    id: `01a216c1-9079-7004-9e32-${String(n).padStart(12, "0")}`,
    name: "noop",
    queue: "default",
    attempts: 1,
    runAt: new Date(Date.now() - 5),
    traceContext: formatTraceContext(stored),
  }) as TaskRecord;
const place = { dialect: "postgresql", transport: "rabbitmq" };

/** The worker's own path: what a run reports from its start to its success. */
function ours(): void {
  const hub = telemetry()!;
  for (let n = 0; n < runs; n++) hub.runStarted(task(n), place)?.end("succeeded");
}

const tracer = trace.getTracer("floor");
const meter = metrics.getMeter("floor");
const seconds = { unit: "s" };
const consumed = meter.createCounter("consumed");
const processDuration = meter.createHistogram("process", seconds);
const waitDuration = meter.createHistogram("wait", seconds);

/** The same work through the SDK directly: a span with nine attributes and one link, two records and one add with six. */
function floor(): void {
  for (let n = 0; n < runs; n++) {
    const record = task(n);
    const span = tracer.startSpan(
      `process ${record.queue}`,
      {
        kind: SpanKind.CONSUMER,
        links: [{ context: { ...stored, isRemote: true } }],
        attributes: {
          "messaging.system": "prisma-task-queue",
          "messaging.operation.name": "process",
          "messaging.operation.type": "process",
          "messaging.destination.name": record.queue,
          "messaging.message.id": record.id,
          "prisma_task_queue.task.name": record.name,
          "prisma_task_queue.task.attempt": record.attempts,
          "prisma_task_queue.dialect": place.dialect,
          "prisma_task_queue.transport": place.transport,
        },
      },
      ROOT_CONTEXT,
    );
    const attributes = {
      "messaging.system": "prisma-task-queue",
      "messaging.operation.name": "process",
      "messaging.destination.name": record.queue,
      "prisma_task_queue.task.name": record.name,
      "prisma_task_queue.dialect": place.dialect,
      "prisma_task_queue.transport": place.transport,
    };
    waitDuration.record(0.005, attributes);
    span.setAttribute("prisma_task_queue.outcome", "succeeded");
    span.end();
    consumed.add(1, attributes);
    processDuration.record(0.001, attributes);
  }
}

/** A round of `fn`: µs of this process's CPU per run, after letting the span processor's timer flush. */
async function measure(fn: () => void): Promise<number> {
  const before = process.cpuUsage();
  fn();
  const used = process.cpuUsage(before);
  await new Promise((resolve) => setTimeout(resolve, 50));
  return (used.user + used.system) / runs;
}

const results: Record<"ours" | "floor", number[]> = { ours: [], floor: [] };
for (let round = 1; round <= rounds; round++) {
  for (const name of round % 2 === 1 ? (["ours", "floor"] as const) : (["floor", "ours"] as const)) {
    results[name].push(await measure(name === "ours" ? ours : floor));
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
for (const name of ["ours", "floor"] as const) {
  console.log(`${name.padEnd(5)} ${results[name].map((us) => us.toFixed(1)).join(" · ")} µs per run; median ${median(results[name]).toFixed(1)}`);
}
process.exit(0);
