// The worker's timers for tasks due later: the ids it was told of (a delayed enqueue's wake-up, its own retries), kept
// in due order up to a cap, with one timer armed to the earliest; when it fires, the due ids are claimed by id.

import type { DueLaterWakeup } from "../wakeups/transport.js";

/** Most tasks a worker keeps timers for; beyond it the latest are dropped, and the cleaner wakes them when due. */
export const DUE_TIMERS_CAPACITY = 10_000;
/**
 * Pauses before claiming again a task the claim found not due yet (the sender counts the time left from when it sent
 * its insert, a little before the database started it, so it errs early; or a clock rounds): 2 + 5 + … + 400 = 792 ms
 * in all, then the cleaner.
 */
const NOT_DUE_PAUSES_MS = [2, 5, 10, 25, 50, 100, 200, 400];
/** setTimeout's longest delay; a later earliest task re-arms the timer when it fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface Entry {
  id: string;
  queue: string;
  dueAt: number;
  /** Claims that found the task not due yet. */
  tries: number;
  /** Claimed again once after a claim said it was taken. */
  rechecked?: boolean;
}

/** What the claim of ids a timer found due tells back; each answers true when the id was put back for a short while. */
export interface TimedIds {
  /** The claim found the task not due yet. False once it was tried enough: the cleaner wakes it when due. */
  notDue(id: string): boolean;
  /**
   * The claim said the task was taken: not pending, or locked by another transaction. Where the reason is read by a
   * second statement (PostgreSQL, SQLite), a task that became due between the two reads so; it is claimed once more,
   * 2 ms later, and dropped if it is still taken (another worker has it).
   */
  taken(id: string): boolean;
}

interface DueTimersOptions {
  /** Claims `ids` of task queue `queue`, which are due; `timed` takes back the ids the claim found not claimable yet. */
  claim(ids: string[], queue: string, timed: TimedIds): void;
  /** Called with how many tasks were dropped for the cap. */
  dropped?(count: number): void;
  capacity?: number;
}

export class DueTimers {
  /** Latest first: the earliest is popped from the end, and the latest beyond the cap are shifted off the front. */
  private readonly entries: Entry[] = [];
  private timer: NodeJS.Timeout | undefined;
  private armedAt = Number.POSITIVE_INFINITY;
  private closed = false;
  private readonly capacity: number;

  constructor(private readonly options: DueTimersOptions) {
    this.capacity = options.capacity ?? DUE_TIMERS_CAPACITY;
  }

  /** How many tasks wait for their time. */
  get size(): number {
    return this.entries.length;
  }

  /** Keeps `wakeups` of task queue `queue` until they are due. */
  add(queue: string, wakeups: readonly DueLaterWakeup[]): void {
    if (this.closed) return;
    for (const { id, dueAt } of wakeups) this.insert({ id, queue, dueAt, tries: 0 });
    this.trim();
    this.arm();
  }

  /** Stops the timer and forgets every task: their rows stay pending, for the cleaner and the other workers. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.entries.length = 0;
  }

  private insert(entry: Entry): void {
    const { entries } = this;
    // Binary search for the first entry due before this one; the new entry goes just before it.
    let low = 0;
    let high = entries.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (entries[mid]!.dueAt < entry.dueAt) high = mid;
      else low = mid + 1;
    }
    if (low === entries.length) entries.push(entry);
    else entries.splice(low, 0, entry);
  }

  private trim(): void {
    const over = this.entries.length - this.capacity;
    if (over <= 0) return;
    this.entries.splice(0, over);
    this.options.dropped?.(over);
  }

  /** Arms the one timer to the earliest task, unless it already is. */
  private arm(): void {
    const earliest = this.entries.at(-1);
    if (!earliest) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.armedAt = Number.POSITIVE_INFINITY;
      return;
    }
    if (this.timer && this.armedAt <= earliest.dueAt) return;
    clearTimeout(this.timer);
    this.armedAt = earliest.dueAt;
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, Math.ceil(earliest.dueAt - performance.now())));
    // Cleared by close(), which the worker's stop() calls: a stopped worker holds no timer.
    this.timer = setTimeout(() => this.fire(), delay);
  }

  private fire(): void {
    this.timer = undefined;
    this.armedAt = Number.POSITIVE_INFINITY;
    if (this.closed) return;
    const now = performance.now();
    const due = new Map<string, Entry[]>();
    for (let last = this.entries.at(-1); last && last.dueAt <= now; last = this.entries.at(-1)) {
      this.entries.pop();
      const ofQueue = due.get(last.queue);
      if (ofQueue) ofQueue.push(last);
      else due.set(last.queue, [last]);
    }
    this.arm();
    for (const [queue, entries] of due) {
      const byId = new Map(entries.map((entry) => [entry.id, entry]));
      this.options.claim([...byId.keys()], queue, {
        notDue: (id) => this.again(byId.get(id)),
        taken: (id) => this.recheck(byId.get(id)),
      });
    }
  }

  /** Puts back once, for the shortest pause, a task the claim said was taken. */
  private recheck(entry: Entry | undefined): boolean {
    if (!entry || this.closed || entry.rechecked) return false;
    this.insert({ ...entry, dueAt: performance.now() + NOT_DUE_PAUSES_MS[0]!, rechecked: true });
    this.trim();
    this.arm();
    return true;
  }

  /** Puts back, for a short pause, a task the claim found not due yet; false once it was tried enough. */
  private again(entry: Entry | undefined): boolean {
    if (!entry || this.closed || entry.tries >= NOT_DUE_PAUSES_MS.length) return false;
    this.insert({ ...entry, dueAt: performance.now() + NOT_DUE_PAUSES_MS[entry.tries]!, tries: entry.tries + 1 });
    this.trim();
    this.arm();
    return true;
  }
}
