// Whether the worker began stopping, and the pauses that end early when it does: a claim retry or a wait for a missing
// row never holds a stopping worker back.

export class StopSignal {
  private readonly controller = new AbortController();
  private readonly pauses = new Set<() => void>();

  /** Aborted once stop() is called. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** True once stop() is called. */
  get stopping(): boolean {
    return this.controller.signal.aborted;
  }

  /** Marks the worker stopping and ends every pause at once. */
  stop(): void {
    this.controller.abort();
    for (const wake of this.pauses) wake();
    this.pauses.clear();
  }

  /** Sleeps `ms`; false when the worker began stopping meanwhile. */
  pause(ms: number): Promise<boolean> {
    if (this.stopping) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pauses.delete(wake);
        resolve(true);
      }, ms);
      const wake = () => {
        clearTimeout(timer);
        resolve(false);
      };
      this.pauses.add(wake);
    });
  }
}
