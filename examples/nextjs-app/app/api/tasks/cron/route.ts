// GET /api/tasks/cron: the worker and the cleaner of the serverless mode. A scheduler calls it every few seconds or
// minutes (Vercel Cron sends `Authorization: Bearer $CRON_SECRET`); each call recovers expired leases, fires due
// schedule slots and runs due tasks within its budget, then answers with what it did. Without the secret: 401.

import { cronRoute } from "prisma-task-queue/next";
import { prisma } from "@/src/db";
import { databaseUrl } from "@/src/settings";
import { tasks } from "@/src/tasks";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
// The platform's limit for this function, in seconds; budgetMs leaves the response a few of them.
export const maxDuration = 30;

export const GET = cronRoute({
  tasks,
  databaseUrl: databaseUrl(),
  budgetMs: 25_000,
  // A function: the client is made at the first call, not when `next build` imports this module. generate-report is
  // transactional and report-digest reads through ctx.prisma; both get this client.
  prisma,
});
