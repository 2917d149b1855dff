// Brings a worker back for tasks a limit left pending: while a queue with a concurrency limit is at its limit (a claim of
// this worker was refused), when one of its runs there ends (its slot is free once its outcome is written); after a
// refusal, when the rate window frees a start or, for a slot another worker frees, after the poll interval. A queue
// below its limits costs nothing more. The cleaner's re-sent wake-ups remain the backstop.

import type { ClaimLimits, ClaimRefusal } from "../store/queue-controls.js";

/** Shortest pause before polling again for a rate window, so a busy window is not polled in a tight loop. */
const MIN_RETRY_MS = 20;

interface LimitWaiterParts {
  /** The limits the claims keep to now (they change when the database's do). */
  limits: () => ClaimLimits;
  /** Polls now and goes on while polls fill every free slot. */
  poll: () => void;
  /** The poll interval: the longest a refused claim waits before looking again. */
  intervalMs: number;
}

export class LimitWaiter {
  private timer: NodeJS.Timeout | undefined;
  private due = Infinity;
  private stopped = false;
  /** Slotted queues where a claim of this worker was refused and no claim since took all it asked for. */
  private readonly full = new Set<string>();

  constructor(private readonly parts: LimitWaiterParts) {}

  /** Whether the queue's slots are counted (a queue's or a task's concurrency): a run ending there frees one. */
  private slotted(queue: string): boolean {
    const limits = this.parts.limits()[queue];
    return limits !== undefined && (limits.concurrency !== undefined || limits.tasks !== undefined);
  }

  /** A claim left due tasks pending: look again when they may fit (a paused queue waits for its resume's wake-ups). */
  refused(refusal: ClaimRefusal): void {
    if (this.stopped || refusal.reason === "paused") return;
    if (refusal.retryInMs === undefined && this.slotted(refusal.queue)) this.full.add(refusal.queue);
    const delay = refusal.retryInMs === undefined ? this.parts.intervalMs : Math.max(MIN_RETRY_MS, Math.min(refusal.retryInMs, this.parts.intervalMs));
    const at = Date.now() + delay;
    if (at >= this.due) return;
    clearTimeout(this.timer);
    this.due = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.due = Infinity;
      if (!this.stopped) this.parts.poll();
    }, delay);
  }

  /**
   * A run ended and its outcome is written: its slot is free now. Polls when the queue is at its limit, or when the
   * task has a limit per key (the claims skip a full key's tasks without a word, so its waiting tasks are not known).
   */
  runEnded(queue: string, name: string): void {
    if (this.stopped) return;
    if (this.full.has(queue) || this.parts.limits()[queue]?.tasks?.[name] !== undefined) this.parts.poll();
  }

  /** A claim of `queue` took all it asked for: the queue is below its limits, as far as this worker knows. */
  fitted(queue: string): void {
    this.full.delete(queue);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
