// The stored trace context: what formatTraceContext writes, parseTraceContext reads back, and anything else (a
// hand-edited row, an all-zero id, another version) is read as no context rather than a broken link.

import { describe, expect, it } from "vitest";
import { formatTraceContext, parseTraceContext } from "../../src/telemetry/trace-context.js";

const ids = { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", traceFlags: 1 };

describe("the stored trace context", () => {
  it("is the W3C traceparent, with the tracestate when there is one, and reads back as written", () => {
    expect(formatTraceContext(ids)).toBe('{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}');
    expect(parseTraceContext(formatTraceContext(ids))).toEqual(ids);
    const withState = { ...ids, traceFlags: 0, traceState: "ptq=1,other=x" };
    expect(formatTraceContext(withState)).toBe('{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00","tracestate":"ptq=1,other=x"}');
    expect(parseTraceContext(formatTraceContext(withState))).toEqual(withState);
  });

  it("reads a valid context written otherwise (spaces, another key order) as the same ids", () => {
    const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    expect(parseTraceContext(JSON.stringify({ traceparent }, null, 2))).toEqual(ids);
    expect(parseTraceContext(`{"tracestate":"ptq=1","traceparent":"${traceparent}"}`)).toEqual({ ...ids, traceState: "ptq=1" });
    expect(parseTraceContext(`{"traceparent":"${traceparent}","tracestate":""}`)).toEqual(ids);
  });

  it("reads null, empty, malformed, all-zero and other-version contexts as none", () => {
    const zeroTrace = JSON.stringify({ traceparent: `00-${"0".repeat(32)}-b7ad6b7169203331-01` });
    const zeroSpan = JSON.stringify({ traceparent: `00-0af7651916cd43dd8448eb211c80319c-${"0".repeat(16)}-01` });
    const otherVersion = JSON.stringify({ traceparent: "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" });
    const upper = JSON.stringify({ traceparent: "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01" });
    for (const text of [null, undefined, "", "not json", "null", "[]", '{"traceparent":7}', zeroTrace, zeroSpan, otherVersion, upper]) {
      expect(parseTraceContext(text), String(text)).toBeUndefined();
    }
  });
});
