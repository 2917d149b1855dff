// The worker's concurrency limit: a counting semaphore whose waiters are turned away when the worker stops.
// Waiters are served in arrival order from a queue read by index, so releasing is O(1) with thousands waiting.

/** Given a slot (ok) or turned away; returns false when it no longer wants one (it gave up after its timeout). */
type Waiter = (ok: boolean) => boolean;

/** `limit` slots; acquire() waits for one, acquireUpTo() for at least one, tryAcquire() takes up to n without waiting. */
export class Slots {
  private used = 0;
  private closed = false;
  private waiters: Waiter[] = [];
  private head = 0;
  private readonly freedListeners: Array<() => void> = [];

  constructor(private max: number) {}

  get limit(): number {
    return this.max;
  }

  /** Changes the limit: a higher one hands the new slots to waiters at once; a lower one waits for releases. */
  setLimit(limit: number): void {
    const grown = limit > this.max;
    this.max = limit;
    if (!grown) return;
    while (this.used < this.max && this.waiting > 0) if (this.shift()!(true)) this.used += 1;
  }

  /** Slots nobody holds or waits for. */
  get free(): number {
    return Math.max(0, this.max - this.used - this.waiting);
  }

  private get waiting(): number {
    return this.waiters.length - this.head;
  }

  /**
   * Resolves true with a slot held, or false when the slots were closed first or `timeoutMs` (when given) passed
   * without a slot.
   */
  acquire(timeoutMs?: number): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    if (this.used < this.max && this.waiting === 0) {
      this.used += 1;
      return Promise.resolve(true);
    }
    if (timeoutMs === undefined) {
      return new Promise((resolve) =>
        this.waiters.push((ok) => {
          resolve(ok);
          return true;
        }),
      );
    }
    return new Promise((resolve) => {
      let gaveUp = false;
      const timer = setTimeout(() => {
        gaveUp = true;
        resolve(false);
      }, timeoutMs);
      this.waiters.push((ok) => {
        if (gaveUp) return false; // the slot came too late: the releaser passes it on
        clearTimeout(timer);
        resolve(ok);
        return true;
      });
    });
  }

  /**
   * Waits for one slot, then takes up to `max` in all; resolves how many it holds (0 when closed first, or when
   * `timeoutMs` is given and passed without a slot).
   */
  async acquireUpTo(max: number, timeoutMs?: number): Promise<number> {
    if (max <= 0) return 0;
    const now = this.tryAcquire(max);
    if (now > 0) return now;
    if (!(await this.acquire(timeoutMs))) return 0;
    return 1 + this.tryAcquire(max - 1);
  }

  /** Takes up to `count` free slots at once and returns how many it took. */
  tryAcquire(count: number): number {
    if (this.closed) return 0;
    const taken = Math.max(0, Math.min(count, this.max - this.used - this.waiting));
    this.used += taken;
    return taken;
  }

  /**
   * Hands each released slot to the first waiter that still wants one (in a loop, not by recursion: thousands may have
   * given up while every slot was held), or frees it; above a lowered limit it frees it.
   */
  release(count = 1): void {
    for (let n = 0; n < count; n++) {
      let handed = false;
      for (let next = this.used <= this.max ? this.shift() : undefined; next; next = handed ? undefined : this.shift()) handed = next(true);
      if (!handed) this.used = Math.max(0, this.used - 1);
    }
    for (const listener of this.freedListeners) listener();
  }

  /** Called after every release. */
  onFreed(listener: () => void): void {
    this.freedListeners.push(listener);
  }

  /** Turns away every waiter and every later acquire; held slots are still released normally. */
  close(): void {
    this.closed = true;
    for (let next = this.shift(); next; next = this.shift()) next(false);
  }

  private shift(): Waiter | undefined {
    if (this.head === this.waiters.length) return undefined;
    const next = this.waiters[this.head++];
    if (this.head === this.waiters.length) {
      this.waiters = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.waiters.length) {
      this.waiters = this.waiters.slice(this.head);
      this.head = 0;
    }
    return next;
  }
}
