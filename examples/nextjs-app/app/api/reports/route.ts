// GET /api/reports: the newest reports with their tasks' live status, and the newest digest, polled by the page every
// 500 ms.

import { prisma } from "@/src/db";
import { latestDigest, listReports } from "@/src/report-views";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  const [reports, digest] = await Promise.all([listReports(prisma()), latestDigest(prisma())]);
  return Response.json({ reports, digest }, { headers: { "cache-control": "no-store" } });
}
