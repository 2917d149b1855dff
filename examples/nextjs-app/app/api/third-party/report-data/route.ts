// A deliberately flaky "third-party" report service, served by the example itself: for each report it answers 503
// to the first FLAKY_FAILURES calls (default 2), then the report's data. The worker's retries make it through. A call
// with slowMs=N takes N ms (at most 4,000) before it answers, so a run can be cut short in the middle.

import { makeReportData } from "@/src/report-data";
import { flakyFailures } from "@/src/settings";

export const dynamic = "force-dynamic";

// Calls seen per report, in this server process. Kept on globalThis so that `next dev` reloading the module keeps it.
const holder = globalThis as typeof globalThis & { thirdPartyCalls?: Map<string, number> };
const calls = (holder.thirdPartyCalls ??= new Map<string, number>());

export async function GET(request: Request): Promise<Response> {
  const params = new URL(request.url).searchParams;
  const reportId = params.get("reportId");
  if (!reportId) {
    return Response.json({ error: "reportId is missing: call /api/third-party/report-data?reportId=<uuid>" }, { status: 400 });
  }
  const slowMs = Math.min(4_000, Math.max(0, Number(params.get("slowMs") ?? 0) || 0));
  if (slowMs > 0) await new Promise((resolve) => setTimeout(resolve, slowMs));
  const call = (calls.get(reportId) ?? 0) + 1;
  calls.set(reportId, call);
  const failures = flakyFailures();
  if (call <= failures) {
    return new Response(`report service under maintenance (call ${call}; it fails the first ${failures} calls of each report)`, {
      status: 503,
      headers: { "retry-after": "1" },
    });
  }
  return Response.json(makeReportData(reportId, new Date()));
}
