// The run's link read from the stored trace context: reused while tasks store the same text, yet a new array for
// every span, so an SDK that keeps the array and adds to it never touches another run's links.

import * as api from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { StoredLinks } from "../../src/telemetry/stored-link.js";
import { formatTraceContext } from "../../src/telemetry/trace-context.js";

const text = formatTraceContext({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", traceFlags: 1 });

describe("StoredLinks", () => {
  it("gives each run an array of its own holding the stored context's link", () => {
    const links = new StoredLinks(api);
    const first = links.of(text);
    first.push({ context: { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", traceFlags: 1 } });
    const second = links.of(text);
    expect(second).not.toBe(first);
    expect(second).toEqual([
      { context: { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", traceFlags: 1, isRemote: true, traceState: undefined } },
    ]);
  });

  it("gives no link for no context or an invalid one", () => {
    const links = new StoredLinks(api);
    expect(links.of(null)).toEqual([]);
    expect(links.of('{"traceparent":"00-00000000000000000000000000000000-00f067aa0ba902b7-01"}')).toEqual([]);
    expect(links.of(text)).toHaveLength(1);
  });
});
