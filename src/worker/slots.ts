// The worker's concurrency limit: a counting semaphore whose waiters are turned away when the worker stops.

/** `limit` slots; acquire() waits for one, tryAcquire() takes up to n without waiting. */
export class Slots {
  private used = 0;
  private closed = false;
  private readonly waiters: Array<(ok: boolean) => void> = [];
  private readonly freedListeners: Array<() => void> = [];

  constructor(readonly limit: number) {}

  /** Slots nobody holds or waits for. */
  get free(): number {
    return Math.max(0, this.limit - this.used - this.waiters.length);
  }

  /** Resolves true with a slot held, or false when the slots were closed first. */
  acquire(): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    if (this.used < this.limit) {
      this.used += 1;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Takes up to `count` free slots at once and returns how many it took. */
  tryAcquire(count: number): number {
    if (this.closed) return 0;
    const taken = Math.max(0, Math.min(count, this.limit - this.used - this.waiters.length));
    this.used += taken;
    return taken;
  }

  release(count = 1): void {
    for (let n = 0; n < count; n++) {
      const next = this.waiters.shift();
      if (next) next(true);
      else this.used = Math.max(0, this.used - 1);
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
    for (const waiter of this.waiters.splice(0)) waiter(false);
  }
}
