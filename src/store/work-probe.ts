// What one bounded pass (runDueTasks) reads before it claims, in one statement: the queues' rows (their limits: a
// limited queue's tasks are claimed only by a claim that counts them), whether any lease expired (the sweep has work),
// and each schedule's last slot (a slot after it may be due).

import type { QueueState } from "./queue-controls.js";

/** A schedule's row as the probe reads it: its id and the latest slot fired or passed over. */
export interface ScheduleMark {
  schedule: string;
  lastSlot: Date;
}

export interface WorkProbe {
  /** Every queue row, as listQueues shows them (in no particular order). */
  queues: QueueState[];
  /** True when a running task's lease has expired by the database clock (findExpiredLeases would find one). */
  expiredLease: boolean;
  /** Every schedule row's last slot (in no particular order). */
  schedules: ScheduleMark[];
}

/** What a row of a dialect's probe statement stands for. */
export type ProbeRowKind = "queue" | "schedule" | "expired";

/** The probe from a dialect's rows, each tagged with its kind; `queue` and `schedule` read the dialect's columns. */
export function probeFromRows<R extends { kind: ProbeRowKind }>(rows: readonly R[], queue: (row: R) => QueueState, schedule: (row: R) => ScheduleMark): WorkProbe {
  return {
    queues: rows.filter((row) => row.kind === "queue").map(queue),
    expiredLease: rows.some((row) => row.kind === "expired"),
    schedules: rows.filter((row) => row.kind === "schedule").map(schedule),
  };
}
