// Records confirmed wake-ups in the task table (published_at), batching many confirmations into one UPDATE.
// A lost mark only costs a redundant re-publish by the cleaner, so failures are logged, not retried.

import type { Db } from "../db/driver.js";
import type { TaskTable } from "../db/table.js";
import type { Logger } from "../logger.js";
import { markPublished } from "../sql/mark-published.js";

/** Coalesces ids and writes them with one statement per event-loop turn, one statement at a time. */
export class PublishedMarker {
  private buffer: string[] = [];
  private running: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly table: TaskTable,
    private readonly logger: Logger,
  ) {}

  add(ids: readonly string[]): void {
    this.buffer.push(...ids);
    this.running ??= this.drain();
  }

  /** Resolves when every id added so far is written (or its write failed and was logged). */
  async flush(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.buffer.length > 0) {
      const ids = this.buffer.splice(0, 5000);
      try {
        await markPublished(this.db, this.table, ids);
      } catch (error) {
        this.logger.warn("could not record published wake-ups; the cleaner may re-publish them", {
          count: ids.length,
          error: (error as Error).message,
        });
      }
    }
    this.running = undefined;
  }
}
