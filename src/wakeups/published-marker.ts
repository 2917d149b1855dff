// Records the fate of wake-ups in the task table (published_at), batching many ids into one UPDATE: by default that
// they were confirmed; with markUnpublished, that they failed. A lost mark costs at most a redundant or later
// re-publish by the cleaner, so failures are logged, not retried.

import type { Logger } from "../logger.js";

/** Records the fate of wake-ups: the store's markPublished or markUnpublished. */
export type PublicationMark = (ids: readonly string[]) => Promise<number>;

/** Coalesces ids and writes them with one statement per event-loop turn, one statement at a time. */
export class PublishedMarker {
  private buffer: string[] = [];
  private running: Promise<void> | undefined;

  constructor(
    private readonly mark: PublicationMark,
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
        await this.mark(ids);
      } catch (error) {
        this.logger.warn("could not record the fate of wake-ups; the cleaner re-publishes them later", {
          count: ids.length,
          error: (error as Error).message,
        });
      }
    }
    this.running = undefined;
  }
}
