// Coalesces requests into one SQL statement per batch: items added in the same event-loop turn (and while the
// previous statement runs) go together, one statement at a time, so a busy worker writes in bulk.

interface Entry<Item, Result> {
  /** One item (add) or several (addMany). */
  items: Item | Item[];
  many: boolean;
  resolve: (result: Result & Result[]) => void;
  reject: (error: unknown) => void;
}

/** Runs `run(items)` for batches of items; `run` returns one result per item, in order. */
export class StatementBatcher<Item, Result> {
  private queue: Array<Entry<Item, Result>> = [];
  private running: Promise<void> | undefined;

  /** `maxBatch` bounds a statement's items, except that one addMany() is never split. */
  constructor(
    private readonly run: (items: Item[]) => Promise<Result[]>,
    private readonly maxBatch = 1000,
  ) {}

  /** Adds an item to the next batch; settles with its result, or rejects with the batch statement's error. */
  add(item: Item): Promise<Result> {
    return this.enqueue(item, false);
  }

  /** Adds items to the next batch together; settles with their results in order. */
  addMany(items: Item[]): Promise<Result[]> {
    return this.enqueue(items, true);
  }

  /** Resolves when every item added so far is settled. */
  async flush(): Promise<void> {
    while (this.running) await this.running;
  }

  private enqueue<T>(items: Item | Item[], many: boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ items, many, resolve: resolve as (result: Result & Result[]) => void, reject });
      this.running ??= this.drain();
    });
  }

  private async drain(): Promise<void> {
    // Items added in this turn's remaining microtasks join the first batch; later ones queue behind the statement.
    for (let hop = 0; hop < 4; hop++) await Promise.resolve();
    while (this.queue.length > 0) {
      const batch = this.take();
      const items: Item[] = [];
      for (const entry of batch) {
        if (entry.many) items.push(...(entry.items as Item[]));
        else items.push(entry.items as Item);
      }
      try {
        const results = await this.run(items);
        let at = 0;
        for (const entry of batch) {
          if (entry.many) {
            const count = (entry.items as Item[]).length;
            entry.resolve(results.slice(at, at + count) as Result & Result[]);
            at += count;
          } else {
            entry.resolve(results[at++] as Result & Result[]);
          }
        }
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    this.running = undefined;
  }

  /** The next entries whose items fit in maxBatch (at least one entry). */
  private take(): Array<Entry<Item, Result>> {
    let size = 0;
    let end = 0;
    while (end < this.queue.length) {
      const entry = this.queue[end]!;
      const count = entry.many ? (entry.items as Item[]).length : 1;
      if (end > 0 && size + count > this.maxBatch) break;
      size += count;
      end += 1;
    }
    return this.queue.splice(0, end);
  }
}
