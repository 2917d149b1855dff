// The link from a run's span to its enqueue's span, read from the task's stored trace context. The tasks of one
// enqueueMany share their call's context and a worker claims them one after another, so the last link read is kept
// and reused while the next task stores the same text.

import type { OtelApi } from "./otel-api.js";
import { parseTraceContext } from "./trace-context.js";

export class StoredLinks {
  private lastText: string | undefined;
  private lastLinks: OtelApi.Link[] = [];

  constructor(private readonly api: typeof OtelApi) {}

  /** The links of a run of a task that stores `text`: one, or none when it stores no valid context. Not to be changed. */
  of(text: string | null | undefined): OtelApi.Link[] {
    if (!text) return [];
    if (text === this.lastText) return this.lastLinks;
    const stored = parseTraceContext(text);
    const links: OtelApi.Link[] = stored
      ? [
          {
            context: {
              traceId: stored.traceId,
              spanId: stored.spanId,
              traceFlags: stored.traceFlags,
              isRemote: true,
              traceState: stored.traceState ? this.api.createTraceState(stored.traceState) : undefined,
            },
          },
        ]
      : [];
    this.lastText = text;
    this.lastLinks = links;
    return links;
  }
}
