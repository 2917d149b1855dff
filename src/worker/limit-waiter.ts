// Brings a worker back for tasks a limit left pending: when one of its runs of a queue with a concurrency limit ends
// (its slot is free once its outcome is written), and, after a claim was refused, when the rate window frees a start
// or, for a slot another worker frees, after the poll interval. The cleaner's re-sent wake-ups remain the backstop.

import type { ClaimLimits, ClaimRefusal } from "../store/queue-controls.js";

/** Shortest pause before polling again for a rate window, so a busy window is not polled in a tight loop. */
const MIN_RETRY_MS = 20;

interface LimitWaiterParts {
  limits: ClaimLimits;
  /** Polls now and goes on while polls fill every free slot. */
  poll: () => void;
  /** The poll interval: the longest a refused claim waits before looking again. */
  intervalMs: number;
}

export class LimitWaiter {
  private timer: NodeJS.Timeout | undefined;
  private due = Infinity;
  private stopped = false;
  /** Queues whose slots are counted (a queue's or a task's concurrency): a run ending there frees one. */
  private readonly slotted: Set<string>;

  constructor(private readonly parts: LimitWaiterParts) {
    this.slotted = new Set(Object.entries(parts.limits).flatMap(([queue, limits]) => (limits.concurrency !== undefined || limits.tasks ? [queue] : [])));
  }

  /** A claim left due tasks pending: look again when they may fit (a paused queue waits for its resume's wake-ups). */
  refused(refusal: ClaimRefusal): void {
    if (this.stopped || refusal.reason === "paused") return;
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

  /** A run ended and its outcome is written: in a queue with counted slots, one is free now. */
  runEnded(queue: string): void {
    if (!this.stopped && this.slotted.has(queue)) this.parts.poll();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
