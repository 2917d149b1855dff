// The worker's concurrency limit: a counting semaphore whose waiters are turned away when the worker stops.
// Waiters are served in arrival order from a queue read by index, so releasing is O(1) with thousands waiting.

type Waiter = (ok: boolean) => void;

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
    while (this.used < this.max && this.waiting > 0) {
      this.used += 1;
      this.shift()!(true);
    }
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
    if (timeoutMs === undefined) return new Promise((resolve) => this.waiters.push(resolve));
    return new Promise((resolve) => {
      let gaveUp = false;
      const timer = setTimeout(() => {
        gaveUp = true;
        resolve(false);
      }, timeoutMs);
      this.waiters.push((ok) => {
        if (gaveUp) {
          if (ok) this.release(); // the slot came too late: pass it on
          return;
        }
        clearTimeout(timer);
        resolve(ok);
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

  release(count = 1): void {
    for (let n = 0; n < count; n++) {
      const next = this.shift();
      if (next && this.used <= this.max) next(true);
      else {
        this.used = Math.max(0, this.used - 1);
        if (next) this.unshift(next);
      }
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

  private unshift(waiter: Waiter): void {
    if (this.head > 0) this.waiters[--this.head] = waiter;
    else this.waiters.unshift(waiter);
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
