// The trace context stored with a task (its trace_context column): the W3C traceparent of the enqueue's span, and its
// tracestate when there is one, as a small JSON object, so any process that runs the task can link its span to it.

/** The stored form: `{"traceparent":"00-<trace id>-<span id>-<flags>"}`, with `"tracestate"` when there is one. */
export interface StoredTraceContext {
  traceparent: string;
  tracestate?: string;
}

/** The fields of a span context that the stored form carries. */
export interface TraceIds {
  traceId: string;
  spanId: string;
  traceFlags: number;
  /** The serialised W3C tracestate, when there is one. */
  traceState?: string;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
/** The text formatTraceContext writes for a context without a tracestate, which nearly every row holds. */
const PLAIN_STORED = /^\{"traceparent":"00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})"\}$/;
const INVALID_TRACE_ID = "0".repeat(32);
const INVALID_SPAN_ID = "0".repeat(16);

/** The column's text for a span context. */
export function formatTraceContext(ids: TraceIds): string {
  const traceparent = `00-${ids.traceId}-${ids.spanId}-${(ids.traceFlags & 0xff).toString(16).padStart(2, "0")}`;
  const stored: StoredTraceContext = ids.traceState ? { traceparent, tracestate: ids.traceState } : { traceparent };
  return JSON.stringify(stored);
}

/**
 * The span context in a column's text; undefined for null, or for text that is not a valid stored context. The text
 * formatTraceContext writes without a tracestate is read with one regular expression; any other goes through JSON.
 */
export function parseTraceContext(text: string | null | undefined): TraceIds | undefined {
  if (!text) return undefined;
  const plain = PLAIN_STORED.exec(text);
  if (plain) return idsOf(plain);
  let stored: unknown;
  try {
    stored = JSON.parse(text);
  } catch {
    return undefined;
  }
  const { traceparent, tracestate } = (stored ?? {}) as Partial<StoredTraceContext>;
  const match = typeof traceparent === "string" ? TRACEPARENT.exec(traceparent) : null;
  const ids = match ? idsOf(match) : undefined;
  if (ids && typeof tracestate === "string" && tracestate !== "") ids.traceState = tracestate;
  return ids;
}

/** The ids a traceparent's match holds; undefined when the trace id or the span id is all zeros (invalid). */
function idsOf(match: RegExpExecArray): TraceIds | undefined {
  const traceId = match[1]!;
  const spanId = match[2]!;
  if (traceId === INVALID_TRACE_ID || spanId === INVALID_SPAN_ID) return undefined;
  return { traceId, spanId, traceFlags: parseInt(match[3]!, 16) };
}
