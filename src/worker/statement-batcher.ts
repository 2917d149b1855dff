// Coalesces single-item requests into one SQL statement per batch: items added in the same event-loop turn (and
// while the previous statement runs) go together, one statement at a time, so a busy worker writes in bulk.

/** Runs `run(items)` for batches of items; `run` returns one result per item, in order. */
export class StatementBatcher<Item, Result> {
  private queue: Array<{ item: Item; resolve: (result: Result) => void; reject: (error: unknown) => void }> = [];
  private running: Promise<void> | undefined;

  constructor(
    private readonly run: (items: Item[]) => Promise<Result[]>,
    private readonly maxBatch = 1000,
  ) {}

  /** Adds an item to the next batch; settles with its result, or rejects with the batch statement's error. */
  add(item: Item): Promise<Result> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.running ??= this.drain();
    });
  }

  /** Resolves when every item added so far is settled. */
  async flush(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      try {
        const results = await this.run(batch.map((entry) => entry.item));
        batch.forEach((entry, index) => entry.resolve(results[index] as Result));
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    this.running = undefined;
  }
}
