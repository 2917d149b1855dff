// GET /api/reports: the newest reports with their tasks' live status, polled by the page every 500 ms.

import { prisma } from "@/src/db";
import { listReports } from "@/src/report-views";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  const reports = await listReports(prisma());
  return Response.json({ reports }, { headers: { "cache-control": "no-store" } });
}
