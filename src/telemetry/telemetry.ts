// The one seam the enqueue, the worker and the cleaner report through: spans through the OpenTelemetry API when it is
// installed, and task events to every listener (the OpenTelemetry metrics, the Prometheus counters). Without the API
// and without listeners, telemetry() is undefined and every caller skips its report after one check.

import { errorMessage } from "../error-text.js";
import type { PreparedTask } from "../store/enqueue-rows.js";
import type { TaskRecord } from "../store/task-record.js";
import { ATTR, errorType, MESSAGING_SYSTEM, SCOPE_NAME } from "./attributes.js";
import { otelApi, type OtelApi } from "./otel-api.js";
import { otelMetrics } from "./otel-metrics.js";
import type { RunEvent, RunOutcome, RunPlace, TelemetryListener } from "./telemetry-events.js";
import { StoredLinks } from "./stored-link.js";
import { formatTraceContext } from "./trace-context.js";

type Api = typeof OtelApi;

/** The span of one enqueue call, open until its insert statement answers. */
export interface EnqueueScope {
  end(error?: unknown): void;
}

/** What a run reports through: its span, its context for the handler, and its end (once). */
export class RunScope {
  private ended = false;
  private readonly startedAt = performance.now();

  constructor(
    private readonly hub: Telemetry,
    readonly event: RunEvent,
    private readonly span: OtelApi.Span | undefined,
    private readonly context: OtelApi.Context | undefined,
  ) {}

  /** The run's trace id, for its log lines; undefined when the run is not traced. */
  get traceId(): string | undefined {
    const ids = this.span?.spanContext();
    return ids && this.hub.api?.isSpanContextValid(ids) ? ids.traceId : undefined;
  }

  /** Calls `fn` inside the run span's context, so that the spans the handler makes are its children. */
  within<T>(fn: () => T): T {
    const { api } = this.hub;
    return this.context && api ? api.context.with(this.context, fn) : fn();
  }

  /**
   * Opens the span of one workflow step (`step <name>`), a child of the run's span; the function it returns ends it with
   * the step's outcome ("recorded", "replayed", "suspended" or "failed"). Undefined when the run is not traced.
   */
  step(name: string, kind: string, seq: number): ((outcome: string, error?: unknown) => void) | undefined {
    const { api } = this.hub;
    if (!this.span || !this.context || !api) return undefined;
    const span = api.trace
      .getTracer(SCOPE_NAME)
      .startSpan(`step ${name}`, { attributes: { [ATTR.stepName]: name, [ATTR.stepKind]: kind, [ATTR.stepSeq]: seq } }, this.context);
    return (outcome, error) => {
      span.setAttribute(ATTR.stepOutcome, outcome);
      if (outcome === "failed") {
        span.setAttribute(ATTR.errorType, errorType(error));
        if (error instanceof Error) span.recordException(error);
        span.setStatus({ code: 2, message: errorMessage(error) });
      }
      span.end();
    };
  }

  /** Ends the run's span and tells the listeners how the run ended. Only the first call counts. */
  end(outcome: RunOutcome, error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    const durationMs = performance.now() - this.startedAt;
    const failure = outcome === "retry" || outcome === "dead" ? errorType(error) : undefined;
    const { span, hub } = this;
    if (span) {
      span.setAttribute(ATTR.outcome, outcome);
      if (failure !== undefined || outcome === "lost") {
        span.setAttribute(ATTR.errorType, failure ?? "TaskLeaseLostError");
        if (error instanceof Error) span.recordException(error);
        // 2 is SpanStatusCode.ERROR (a const enum of the API, which this file does not load).
        span.setStatus({ code: 2, message: outcome === "lost" ? "lease lost" : errorMessage(error) });
      }
      span.end();
    }
    hub.emit((listener) => listener.taskEnded?.(this.event, outcome, durationMs, failure));
  }
}

/**
 * Where a task's record keeps the scope of the run that holds it: a symbol-keyed slot on the record the run owns,
 * cheaper than a WeakMap, whose entries outlive the runs until a collection and cost one every few thousand runs.
 */
const RUN_SCOPE = Symbol("prisma-task-queue run scope");
type ScopedTask = TaskRecord & { [RUN_SCOPE]?: RunScope };

/** The scope of the run that holds `task`, for the parts that write its outcome. */
export function runScopeOf(task: TaskRecord): RunScope | undefined {
  return (task as ScopedTask)[RUN_SCOPE];
}

export class Telemetry {
  private readonly tracer: OtelApi.Tracer | undefined;
  /** The API's tracer provider while no SDK is registered, whose spans record nothing. */
  private readonly noopTracerProvider: unknown;
  private readonly links: StoredLinks | undefined;

  constructor(
    readonly api: Api | undefined,
    private readonly listeners: ReadonlySet<TelemetryListener>,
  ) {
    this.tracer = api?.trace.getTracer(SCOPE_NAME);
    this.noopTracerProvider = api && new api.ProxyTracerProvider().getDelegate();
    this.links = api && new StoredLinks(api);
  }

  /**
   * The tracer, while an SDK's tracer provider is registered (the app may register one at any time); undefined while
   * the API's spans would record nothing, so that a run does not pay for parsing, links and attributes nobody reads.
   */
  private recordingTracer(): OtelApi.Tracer | undefined {
    const { api, tracer } = this;
    if (!api || !tracer) return undefined;
    const provider = api.trace.getTracerProvider() as { getDelegate?(): unknown };
    return provider.getDelegate?.() === this.noopTracerProvider ? undefined : tracer;
  }

  /** Calls `call` on every listener; a listener that throws is skipped. */
  emit(call: (listener: TelemetryListener) => void): void {
    for (const listener of this.listeners) {
      try {
        call(listener);
      } catch {
        // A listener must not break the queue; its own exporter reports its failures.
      }
    }
  }

  /**
   * Opens the `send` span of one enqueue call in the caller's active context and writes its trace context into every
   * row (a batch shares its call's span). Undefined when nothing traces.
   */
  enqueueStarted(rows: PreparedTask[], dialect: string): EnqueueScope | undefined {
    const { api } = this;
    const tracer = this.recordingTracer();
    if (!api || !tracer || rows.length === 0) return undefined;
    const queue = uniform(rows, (row) => row.queue);
    const name = uniform(rows, (row) => row.name);
    const attributes: OtelApi.Attributes = {
      [ATTR.system]: MESSAGING_SYSTEM,
      [ATTR.operationName]: "send",
      [ATTR.operationType]: "send",
      [ATTR.dialect]: dialect,
    };
    if (queue !== undefined) attributes[ATTR.destination] = queue;
    if (name !== undefined) attributes[ATTR.taskName] = name;
    if (rows.length === 1) attributes[ATTR.messageId] = rows[0]!.id;
    else attributes[ATTR.batchCount] = rows.length;
    const span = tracer.startSpan(queue === undefined ? "send" : `send ${queue}`, { kind: api.SpanKind.PRODUCER, attributes });
    const ids = span.spanContext();
    if (api.isSpanContextValid(ids)) {
      const traceContext = formatTraceContext({ ...ids, traceState: ids.traceState?.serialize() });
      for (const row of rows) row.traceContext = traceContext;
    }
    return {
      end(error) {
        if (error !== undefined) {
          span.setAttribute(ATTR.errorType, errorType(error));
          span.setStatus({ code: api.SpanStatusCode.ERROR, message: errorMessage(error) });
        }
        span.end();
      },
    };
  }

  /** Enqueues committed: the new tasks per queue. */
  enqueued(rows: ReadonlyArray<{ queue: string; created: boolean }>, dialect: string): void {
    if (this.listeners.size === 0) return;
    const perQueue = new Map<string, number>();
    for (const row of rows) if (row.created) perQueue.set(row.queue, (perQueue.get(row.queue) ?? 0) + 1);
    for (const [queue, count] of perQueue) this.emit((listener) => listener.tasksSent?.({ queue, count, dialect }));
  }

  /** Whether a listener records anything now. */
  private listening(): boolean {
    for (const listener of this.listeners) if (listener.active?.() ?? true) return true;
    return false;
  }

  /**
   * A run starts: its `process` span (a root, linked to the task's stored enqueue context, on every attempt) and the
   * listeners' taskStarted. The scope is found again by runScopeOf(task) until it ends. Undefined when nothing would
   * observe the run (the API installed, no SDK registered, no other listener).
   */
  runStarted(task: TaskRecord, place: RunPlace): RunScope | undefined {
    const { api, links } = this;
    const tracer = this.recordingTracer();
    if (!tracer && !this.listening()) return undefined;
    // Field by field, not `{ ...place, … }`: the spread and the later reads of its result cost about 6 µs per run
    // (bench/telemetry-floor.ts), a third of the SDK's own work for the run.
    const event: RunEvent = { dialect: place.dialect, transport: place.transport, taskId: task.id, taskName: task.name, queue: task.queue, attempt: task.attempts };
    let span: OtelApi.Span | undefined;
    let context: OtelApi.Context | undefined;
    if (api && links && tracer) {
      span = tracer.startSpan(
        `process ${task.queue}`,
        {
          kind: api.SpanKind.CONSUMER,
          links: links.of(task.traceContext),
          attributes: {
            [ATTR.system]: MESSAGING_SYSTEM,
            [ATTR.operationName]: "process",
            [ATTR.operationType]: "process",
            [ATTR.destination]: task.queue,
            [ATTR.messageId]: task.id,
            [ATTR.taskName]: task.name,
            [ATTR.attempt]: task.attempts,
            [ATTR.dialect]: place.dialect,
            [ATTR.transport]: place.transport,
          },
        },
        api.ROOT_CONTEXT,
      );
      context = api.trace.setSpan(api.ROOT_CONTEXT, span);
    }
    const scope = new RunScope(this, event, span, context);
    (task as ScopedTask)[RUN_SCOPE] = scope;
    if (this.listeners.size > 0) {
      const waitMs = Date.now() - task.runAt.getTime();
      this.emit((listener) => listener.taskStarted?.(event, waitMs));
    }
    return scope;
  }

  /** The cleaner recovered expired leases in a sweep that started at `startedAt` (Date.now()). */
  leasesRecovered(startedAt: number, tasks: ReadonlyArray<{ queue: string; status: "pending" | "dead" }>): void {
    if (tasks.length === 0) return;
    const perQueue = new Map<string, { retried: number; dead: number }>();
    for (const task of tasks) {
      const counts = perQueue.get(task.queue) ?? { retried: 0, dead: 0 };
      if (task.status === "dead") counts.dead += 1;
      else counts.retried += 1;
      perQueue.set(task.queue, counts);
    }
    const retried = tasks.filter((task) => task.status === "pending").length;
    this.cleanerSpan("recover expired leases", startedAt, {
      [ATTR.count]: tasks.length,
      "prisma_task_queue.retried": retried,
      "prisma_task_queue.dead": tasks.length - retried,
    });
    for (const [queue, counts] of perQueue) this.emit((listener) => listener.leasesRecovered?.({ queue, ...counts }));
  }

  /** The cleaner re-published `count` wake-ups in a step that started at `startedAt` (Date.now()). */
  wakeupsRepublished(startedAt: number, count: number): void {
    if (count === 0) return;
    this.cleanerSpan("republish wake-ups", startedAt, { [ATTR.count]: count });
    this.emit((listener) => listener.wakeupsRepublished?.({ count }));
  }

  /** A span for cleaner work that did something, made once the work is done (an idle sweep makes none). */
  private cleanerSpan(name: string, startedAt: number, attributes: OtelApi.Attributes): void {
    const { api } = this;
    const tracer = this.recordingTracer();
    if (!api || !tracer) return;
    const span = tracer.startSpan(
      name,
      { kind: api.SpanKind.INTERNAL, startTime: startedAt, attributes: { [ATTR.system]: MESSAGING_SYSTEM, ...attributes } },
      api.ROOT_CONTEXT,
    );
    span.end();
  }
}

function uniform<T>(rows: readonly PreparedTask[], of: (row: PreparedTask) => T): T | undefined {
  const first = of(rows[0]!);
  return rows.every((row) => of(row) === first) ? first : undefined;
}

const listeners = new Set<TelemetryListener>();
let hub: Telemetry | null | undefined;
let metricsAdded = false;

/** The telemetry of this process, or undefined when nothing listens (no OpenTelemetry API, no listener). */
export function telemetry(): Telemetry | undefined {
  if (hub === undefined) {
    const api = otelApi();
    if (api && !metricsAdded) {
      listeners.add(otelMetrics(api));
      metricsAdded = true;
    }
    hub = api || listeners.size > 0 ? new Telemetry(api, listeners) : null;
  }
  return hub ?? undefined;
}

/** Adds a listener of task events (an exporter); returns the function that removes it. */
export function addTelemetryListener(listener: TelemetryListener): () => void {
  listeners.add(listener);
  hub = undefined;
  return () => {
    listeners.delete(listener);
    hub = undefined;
  };
}
