// The inputs and outputs of the store's writes on the task lifecycle: claims, outcomes, leases, recovery. Every write
// that finishes a run is guarded by the lease: `owner` must still hold the task.

import type { ClaimLimits, ClaimRefusal } from "./queue-controls.js";
import type { TaskRecord } from "./task-record.js";

/** A task and the queue its wake-up goes to. */
export interface WakeupTarget {
  id: string;
  queue: string;
  /** Set for a task due later (a delayed enqueue): when it is due, on this process's performance.now() clock. */
  dueAt?: number;
}

/** Who claims, for how long, and which tasks it may take. */
export interface ClaimFilter {
  /** Written to lease_owner. */
  owner: string;
  /** The lease lasts this long from the claim (database clock). */
  leaseMs: number;
  /** Task names the claimer has handlers for; nothing else is claimed. */
  names: readonly string[];
  /** Task queues the claimer serves; nothing else is claimed. */
  queues: readonly string[];
  /** The limits of the limited queues among `queues`: their claims lock the queue's row and count. Default: none. */
  limits?: ClaimLimits;
  /**
   * Set by the claims of a limited queue for the ids they chose under the queue's lock. Without it, a task of a queue
   * whose row in the database declares limits is never claimed (reason "limited"): a claimer that does not count a
   * queue cannot start its tasks, whatever limits its own configuration declares.
   */
  counted?: boolean;
  /** Told when a claim leaves due tasks of a queue pending because it is paused or at a limit. */
  refused?(refusal: ClaimRefusal): void;
  /** Told when a claim of a limited queue had room for every task it asked for (the queue is below its limits). */
  fitted?(queue: string): void;
}

/** Why an id was not claimed, as the claim saw it. */
export type UnclaimedReason = "missing" | "not-pending" | "not-due" | "not-ours" | "locked" | "paused" | "limited";

/**
 * One result per distinct id asked for: the claimed task (status running, attempts counting this run, lease set), or
 * why it was not claimed, with the name and queue of the row the claim saw when there is one.
 */
export type ClaimByIdResult = { id: string; claimed: TaskRecord } | { id: string; claimed: null; reason: UnclaimedReason; name?: string; queue?: string };

/** One success to record. `resultJson` is already-serialised JSON ("null" for no result). */
export interface Completion {
  id: string;
  /**
   * The run's attempt (the task's attempts as its claim set them): the success is recorded only while the row is still
   * that run, so a write retried after an unclear error never lands on a later run of the same worker. Absent: any run
   * of the owner.
   */
  attempt?: number;
  resultJson: string;
}

/** One failed run to record. */
export interface Failure {
  id: string;
  /**
   * The run's attempt (the task's attempts as its claim set them): the failure is recorded only while the row is still
   * that run, so a write retried after an unclear error never lands on a later run of the same worker. Absent: any run
   * the owner holds.
   */
  attempt?: number;
  /** Stored as the task's last error. */
  error: string;
  /** Retry delay from now, used when the task goes back to pending. */
  delayMs: number;
  /** A reason ("unrecoverable", "invalid-payload", …) makes the task dead whatever attempts remain. */
  finalReason: string | null;
}

/** What became of a failed task. */
export interface FailedTask {
  id: string;
  name: string;
  queue: string;
  status: "pending" | "dead";
  attempts: number;
  lastError: string | null;
  /** Why it is dead ("max-attempts" when its attempts ran out); null when it will retry. */
  reason: string | null;
}

/** Per id of a heartbeat: extended, or held by someone else now (lost), or neither (locked: try again next beat). */
export interface LeaseState {
  id: string;
  extended: boolean;
  lost: boolean;
}

/** A task whose expired lease a cleaner holds (holdExpiredLease) while its recovery function decides. */
export interface HeldLease {
  /** The cleaner's holder id written to lease_owner. */
  holder: string;
  /** The worker that lost the lease, for the error text. */
  formerOwner: string | null;
}

/** A task whose lease expired, as recovery changed it. */
export interface RecoveredTask {
  id: string;
  name: string;
  queue: string;
  status: "pending" | "dead";
  attempts: number;
  maxAttempts: number;
  /** The worker that held the expired lease. */
  leaseOwner: string | null;
  lastError: string | null;
}
