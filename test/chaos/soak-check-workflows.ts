// The soak's verdict on workflows, from their rows, their children's rows and the events the load sent: a workflow
// received only an event whose transaction committed, always the one sent in its own enqueue's transaction, and never
// one that rolled back; it started each planned child once (a child row per planned child, linked to it), and every
// child succeeded. Its transactional step's effect is checked with the other effects (exactly one row).

import type { LoadRecord } from "./soak-load.js";

/** A task row as the checker reads it. */
export interface CheckedRow {
  id: string;
  name: string;
  status: string;
  attempts: number;
  result: unknown;
  parentId: string | null;
}

export interface WorkflowFindings {
  /** Workflows committed; and of them, finished. */
  workflows: number;
  finished: number;
  /** Events received: sent in the workflow's own transaction, or by a later one. */
  eventsInOwnTransaction: number;
  eventsLater: number;
  /** Waits that timed out, and events whose transaction rolled back (none of them may be received). */
  timedOut: number;
  rolledBackEvents: number;
  /** Child rows, all of them started by workflows the load committed. */
  children: number;
}

export function checkWorkflows(load: LoadRecord, all: readonly CheckedRow[], flag: (id: string, text: string) => void): WorkflowFindings {
  const rowById = new Map(all.map((row) => [row.id, row]));
  const childrenOf = new Map<string, CheckedRow[]>();
  for (const row of all) {
    if (row.parentId === null) continue;
    if (load.committed.get(row.parentId)?.name !== "soak-workflow")
      flag(row.id, `task ${row.id} (${row.name}) is a child of ${row.parentId}, which is no workflow the load committed`);
    childrenOf.set(row.parentId, [...(childrenOf.get(row.parentId) ?? []), row]);
  }
  const signalsOf = new Map<string, LoadRecord["signals"]>();
  for (const signal of load.signals) signalsOf.set(signal.taskId, [...(signalsOf.get(signal.taskId) ?? []), signal]);

  const findings: WorkflowFindings = { workflows: 0, finished: 0, eventsInOwnTransaction: 0, eventsLater: 0, timedOut: 0, rolledBackEvents: 0, children: 0 };
  findings.rolledBackEvents = load.signals.filter((signal) => !signal.committed).length;
  for (const [id, task] of load.committed) {
    if (task.name !== "soak-workflow") continue;
    findings.workflows++;
    const row = rowById.get(id);
    if (row?.status !== "succeeded") continue; // reported by the check of final states
    findings.finished++;
    const result = row.result as { event?: string | null; waited?: boolean; children?: number } | null;
    const signals = signalsOf.get(id) ?? [];
    const own = signals.find((signal) => signal.sameTx);
    const received = result?.event ?? null;
    if (received === null) {
      if (own) flag(id, `workflow ${id} did not receive the event sent in its own enqueue's transaction`);
      else if (result?.waited) findings.timedOut++;
    } else {
      const sent = signals.find((signal) => signal.token === received);
      if (!sent) flag(id, `workflow ${id} received an event ${received} that was never sent to it`);
      else if (!sent.committed) flag(id, `workflow ${id} received the event ${received}, whose transaction rolled back`);
      else if (own && sent !== own) flag(id, `workflow ${id} received a later event instead of the one sent in its own enqueue's transaction`);
      else if (sent.sameTx) findings.eventsInOwnTransaction++;
      else findings.eventsLater++;
    }
    const planned = task.children ?? 0;
    const children = childrenOf.get(id) ?? [];
    findings.children += children.length;
    if (children.length !== planned) flag(id, `workflow ${id} has ${children.length} child rows for ${planned} planned children`);
    for (const child of children) {
      if (child.status !== "succeeded") flag(child.id, `child ${child.id} of workflow ${id} ended ${child.status} after ${child.attempts} attempts, not succeeded`);
    }
    if (result?.children !== planned) flag(id, `workflow ${id} saw ${String(result?.children)} of its ${planned} children succeed`);
  }
  return findings;
}
