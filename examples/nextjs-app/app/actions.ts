"use server";
// Server actions of the page. Each writes the Report row and enqueues its generate-report task in ONE transaction:
// the task exists exactly when the report does. The second action throws after the enqueue, so both roll back.

import { prisma } from "@/src/db";
import { reportTaskKey } from "@/src/tasks";

export type ActionOutcome =
  | { kind: "requested"; reportId: string; taskId: string }
  | { kind: "rolled-back"; reportId: string; taskId: string; reportRowExists: boolean; taskRowExists: boolean; error: string };

/** How a report is asked for: now; in 5 seconds (a delayed task); or from a service that takes 3 s to answer. */
export type RequestKind = "now" | "later" | "slow";

const LATER_MS = 5_000;
const SLOW_MS = 3_000;

/** Request a report: the report row (pending) and its task commit together; the worker is woken after the commit. */
export async function requestReport(kind: RequestKind = "now"): Promise<ActionOutcome> {
  if (kind !== "now" && kind !== "later" && kind !== "slow") throw new Error(`unknown request kind ${JSON.stringify(kind)}: use "now", "later" or "slow".`);
  const { reportId, taskId } = await prisma().$transaction(async (tx) => {
    const report = await tx.report.create({ data: {} });
    const task = await tx.task.enqueue(
      "generate-report",
      { reportId: report.id, ...(kind === "slow" ? { slowMs: SLOW_MS } : {}) },
      { key: reportTaskKey(report.id), ...(kind === "later" ? { delayMs: LATER_MS } : {}) },
    );
    return { reportId: report.id, taskId: task.id };
  });
  return { kind: "requested", reportId, taskId };
}

class SimulatedFailure extends Error {}

/**
 * The same writes, then a failure inside the transaction after the enqueue (as if a later business check threw).
 * Both rows roll back, no wake-up is published, and nothing ever runs. Afterwards it looks both rows up to show it.
 */
export async function requestReportThenFail(): Promise<ActionOutcome> {
  let reportId = "";
  let taskId = "";
  let error = "";
  try {
    await prisma().$transaction(async (tx) => {
      const report = await tx.report.create({ data: {} });
      const task = await tx.task.enqueue("generate-report", { reportId: report.id }, { key: reportTaskKey(report.id) });
      reportId = report.id;
      taskId = task.id;
      throw new SimulatedFailure("payment check failed after the enqueue (simulated)");
    });
  } catch (caught) {
    if (!(caught instanceof SimulatedFailure)) throw caught;
    error = caught.message;
  }
  const db = prisma();
  const [report, task] = await Promise.all([
    db.report.findUnique({ where: { id: reportId }, select: { id: true } }),
    db.task.findUnique({ where: { id: taskId }, select: { id: true } }),
  ]);
  return { kind: "rolled-back", reportId, taskId, reportRowExists: report !== null, taskRowExists: task !== null, error };
}
