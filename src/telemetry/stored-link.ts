// The link from a run's span to its enqueue's span, read from the task's stored trace context. The tasks of one
// enqueueMany share their call's context and a worker claims them one after another, so the last link read is kept
// and reused while the next task stores the same text (each span gets an array of its own: an SDK may keep it and add
// to it).

import type { OtelApi } from "./otel-api.js";
import { parseTraceContext } from "./trace-context.js";

export class StoredLinks {
  private lastText: string | undefined;
  private lastLink: OtelApi.Link | undefined;

  constructor(private readonly api: typeof OtelApi) {}

  /** The links of a run of a task that stores `text`: one, or none when it stores no valid context; a new array each time. */
  of(text: string | null | undefined): OtelApi.Link[] {
    if (!text) return [];
    if (text !== this.lastText) {
      const stored = parseTraceContext(text);
      this.lastLink = stored && {
        context: {
          traceId: stored.traceId,
          spanId: stored.spanId,
          traceFlags: stored.traceFlags,
          isRemote: true,
          traceState: stored.traceState ? this.api.createTraceState(stored.traceState) : undefined,
        },
      };
      this.lastText = text;
    }
    return this.lastLink ? [this.lastLink] : [];
  }
}
