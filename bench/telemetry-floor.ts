// What one run's telemetry costs in CPU, with no database: the worker's own calls (Telemetry.runStarted and the run's
// end, for a task with a stored trace context) against the floor, the OpenTelemetry SDK doing the same work called
// directly (one span with the same attributes and link, two histogram records and one counter add with the same
// attributes). A second pair adds what a worker does besides: the handler called inside the run's context (ours:
// RunScope.within; the floor: context.with on a context holding the span) and the run's trace id read for its log
// lines. All with the SDK of bench/otel-sdk.ts (exporters that drop everything), in one process, the order turning
// every round, many rounds; µs of CPU per run, median of the rounds. Each task stores a context of its own (as single
// enqueues do); --shared-context gives them all one (as the tasks of one enqueueMany share their call's).
// Usage: npx tsx bench/telemetry-floor.ts [--runs=50000] [--rounds=7] [--shared-context]

import { context, metrics, ROOT_CONTEXT, SpanKind, trace, type Span } from "@opentelemetry/api";
import { execFileSync } from "node:child_process";
import type { TaskRecord } from "../src/store/task-record.js";
import { DURATION_BUCKETS_SECONDS } from "../src/telemetry/duration-buckets.js";
import { telemetry } from "../src/telemetry/telemetry.js";
import { formatTraceContext } from "../src/telemetry/trace-context.js";
import { registerSdk } from "./otel-sdk.js";

const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const runs = Number(arg("runs", "50000"));
const rounds = Number(arg("rounds", "7"));
const sharedContext = process.argv.includes("--shared-context");

registerSdk("on");

/** The enqueue's span context that task `n` stores. */
const stored = (n: number) => ({
  traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
  spanId: sharedContext ? "00f067aa0ba902b7" : (n + 1).toString(16).padStart(16, "0"),
  traceFlags: 1,
});
const task = (n: number, ids = stored(n)): TaskRecord =>
  ({
    id: `01a216c1-9079-7004-9e32-${String(n).padStart(12, "0")}`,
    name: "noop",
    queue: "default",
    attempts: 1,
    runAt: new Date(Date.now() - 5),
    traceContext: formatTraceContext(ids),
  }) as TaskRecord;
const place = { dialect: "postgresql", transport: "rabbitmq" };
/** The handler: nothing, so that only the cost of calling it in a context is measured. */
const handler = () => undefined;
/** Keeps the trace ids read, so that reading them is not optimised away. */
let traceIds = 0;

/** The worker's own path: what a run reports from its start to its success. */
function ours(): void {
  const hub = telemetry()!;
  for (let n = 0; n < runs; n++) hub.runStarted(task(n), place)?.end("succeeded");
}

/** The same, with the handler called in the run's context and the run's trace id read, as the worker does. */
function oursInContext(): void {
  const hub = telemetry()!;
  for (let n = 0; n < runs; n++) {
    const scope = hub.runStarted(task(n), place)!;
    scope.within(handler);
    if (scope.traceId !== undefined) traceIds++;
    scope.end("succeeded");
  }
}

const tracer = trace.getTracer("floor");
const meter = metrics.getMeter("floor");
const seconds = { unit: "s", advice: { explicitBucketBoundaries: [...DURATION_BUCKETS_SECONDS] } };
const consumed = meter.createCounter("consumed");
const processDuration = meter.createHistogram("process", seconds);
const waitDuration = meter.createHistogram("wait", seconds);

/** The floor of one run: a span with nine attributes and one link, two records and one add with six; `during` before its end. */
function floorRun(n: number, during: (span: Span) => void): void {
  const ids = stored(n);
  const record = task(n, ids);
  const span = tracer.startSpan(
    `process ${record.queue}`,
    {
      kind: SpanKind.CONSUMER,
      links: [{ context: { ...ids, isRemote: true } }],
      attributes: {
        "messaging.system": "prisma_task_queue",
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
    "messaging.system": "prisma_task_queue",
    "messaging.operation.name": "process",
    "messaging.destination.name": record.queue,
    "prisma_task_queue.task.name": record.name,
    "prisma_task_queue.dialect": place.dialect,
    "prisma_task_queue.transport": place.transport,
  };
  waitDuration.record(0.005, attributes);
  during(span);
  span.setAttribute("prisma_task_queue.outcome", "succeeded");
  span.end();
  consumed.add(1, attributes);
  processDuration.record(0.001, attributes);
}

const nothing = () => undefined;
const inContext = (span: Span) => {
  context.with(trace.setSpan(ROOT_CONTEXT, span), handler);
  if (span.spanContext().traceId) traceIds++;
};

/** The same work through the SDK directly. */
function floor(): void {
  for (let n = 0; n < runs; n++) floorRun(n, nothing);
}

/** The floor with the handler called in a context holding the span, and the span's trace id read. */
function floorInContext(): void {
  for (let n = 0; n < runs; n++) floorRun(n, inContext);
}

/** A round of `fn`: µs of this process's CPU per run, after letting the span processor's timer flush. */
async function measure(fn: () => void): Promise<number> {
  const before = process.cpuUsage();
  fn();
  const used = process.cpuUsage(before);
  await new Promise((resolve) => setTimeout(resolve, 50));
  return (used.user + used.system) / runs;
}

const paths = { ours, floor, "ours in context": oursInContext, "floor in context": floorInContext };
type Path = keyof typeof paths;
const names = Object.keys(paths) as Path[];
const results = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<Path, number[]>;
for (let round = 0; round < rounds; round++) {
  for (let i = 0; i < names.length; i++) {
    const name = names[(round + i) % names.length]!;
    results[name].push(await measure(paths[name]));
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const git = (...args: string[]) => execFileSync("git", args, { encoding: "utf8" }).trim();
const commit = `${git("rev-parse", "--short", "HEAD")}${git("status", "--porcelain", "src", "bench") === "" ? "" : " with uncommitted changes"}`;
const contexts = sharedContext ? "one stored context shared by every task" : "a stored context per task";
console.log(`telemetry floor: commit ${commit}, ${new Date().toISOString()}, node ${process.version}, ${runs} runs × ${rounds} rounds, ${contexts}`);
for (const name of names) {
  console.log(`${name.padEnd(16)} ${results[name].map((us) => us.toFixed(1)).join(" · ")} µs per run; median ${median(results[name]).toFixed(1)}`);
}
// On a shared machine another process's load slows some rounds: the difference within each round and the fastest
// round of each path are shown beside the medians, as both are less sensitive to it.
for (const [ourPath, floorPath] of [
  ["ours", "floor"],
  ["ours in context", "floor in context"],
] as const) {
  const [us, them] = [median(results[ourPath]), median(results[floorPath])];
  const perRound = median(results[ourPath].map((value, round) => value - results[floorPath][round]!));
  const fastest = (values: number[]) => Math.min(...values).toFixed(1);
  console.log(
    `${ourPath} − ${floorPath}: ${(us - them).toFixed(1)} µs per run (${((us / them) * 100).toFixed(0)} % of the floor); ` +
      `median of the rounds' differences ${perRound.toFixed(1)}; fastest rounds ${fastest(results[ourPath])} and ${fastest(results[floorPath])}`,
  );
}
if (traceIds === 0) throw new Error("no trace id was read");
process.exit(0);
