// What the page shows of each report: the report row joined with its task row (found by the key report:<id>),
// reduced to one status a person understands: pending, retrying, running, done or failed.

import type { AppPrisma } from "./db";
import type { ReportData } from "./report-data";
import { reportTaskKey } from "./tasks";

export type ReportStatus = "pending" | "retrying" | "running" | "done" | "failed" | "cancelled";

/** One line of the page's table; plain JSON, so the route handler can send it as is. */
export interface ReportView {
  id: string;
  status: ReportStatus;
  requestedAt: string;
  completedAt: string | null;
  /** Runs of the task so far (the task row's attempts), null when the task row is gone (pruned after success). */
  attempts: number | null;
  maxAttempts: number | null;
  /**
   * First line of the task's current error or, once it succeeded, of the newest error in its history (the task row's
   * `errors`, its last 10 failed attempts), so the retries stay visible.
   */
  lastError: string | null;
  /** When a retrying task runs next (database clock). */
  nextRunAt: string | null;
  result: ReportData | null;
}

/** The newest `limit` reports with their tasks' progress. */
export async function listReports(prisma: AppPrisma, limit = 12): Promise<ReportView[]> {
  const reports = await prisma.report.findMany({ orderBy: { createdAt: "desc" }, take: limit });
  const taskRows = await prisma.task.findMany({
    where: { key: { in: reports.map((report) => reportTaskKey(report.id)) } },
    select: { key: true, status: true, attempts: true, maxAttempts: true, lastError: true, errors: true, runAt: true },
  });
  const byKey = new Map(taskRows.map((task) => [task.key, task]));
  return reports.map((report) => {
    const task = byKey.get(reportTaskKey(report.id));
    return {
      id: report.id,
      status: statusOf(report.status, task?.status, task?.attempts ?? 0),
      requestedAt: report.createdAt.toISOString(),
      completedAt: report.completedAt?.toISOString() ?? null,
      attempts: task?.attempts ?? null,
      maxAttempts: task?.maxAttempts ?? null,
      lastError: (task?.lastError ?? newestError(task?.errors))?.split("\n")[0]?.replace(/^Error: /, "") ?? null,
      nextRunAt: task?.status === "pending" && task.attempts > 0 ? task.runAt.toISOString() : null,
      result: (report.result as ReportData | null) ?? null,
    };
  });
}

/** The newest entry's text of a task's error history (a JSON array of { attempt, error, at }, oldest first). */
function newestError(errors: unknown): string | undefined {
  if (!Array.isArray(errors) || errors.length === 0) return undefined;
  const newest: unknown = errors[errors.length - 1];
  return typeof newest === "object" && newest !== null && "error" in newest && typeof newest.error === "string" ? newest.error : undefined;
}

function statusOf(reportStatus: string, taskStatus: string | undefined, attempts: number): ReportStatus {
  if (reportStatus === "done") return "done";
  switch (taskStatus) {
    case "running":
      return "running";
    case "dead":
      return "failed";
    case "cancelled":
      return "cancelled";
    case "pending":
      return attempts > 0 ? "retrying" : "pending";
    default:
      // No task row while the report is pending: the enqueue committed with the report, so the row was pruned after
      // finishing. Show what the report row says.
      return "pending";
  }
}

/** The recurring report-digest's newest run: the slot it ran for and the reports done by then. */
export interface DigestView {
  slot: string;
  done: number;
  finishedAt: string | null;
}

/** The newest succeeded report-digest task, or null before the first slot has run. */
export async function latestDigest(prisma: AppPrisma): Promise<DigestView | null> {
  const task = await prisma.task.findFirst({
    where: { name: "report-digest", status: "succeeded" },
    orderBy: { runAt: "desc" },
    select: { runAt: true, result: true, finishedAt: true },
  });
  if (!task) return null;
  const result = task.result as { done?: unknown } | null;
  return { slot: task.runAt.toISOString(), done: typeof result?.done === "number" ? result.done : 0, finishedAt: task.finishedAt?.toISOString() ?? null };
}
