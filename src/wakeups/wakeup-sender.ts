// The one wake-up sender, used by the extension, the worker, the cleaner, the CLI and the dashboard: hands wake-ups to
// the transport's publisher and records their fate in the task table (published_at), so the cleaner knows which to
// re-send. Failures are logged and reported, never thrown: the row is the truth.

import type { Logger } from "../logger.js";
import type { WakeupTarget } from "../store/task-writes.js";
import type { DeadTaskNotification } from "./dead-task-notification.js";
import { traceChannels, traceWakeups } from "../trace/channels.js";
import { PublishedMarker, type PublicationMark } from "./published-marker.js";
import type { DueLaterWakeup, WakeupPublisher, WakeupTransport } from "./transport.js";

interface WakeupSenderOptions {
  transport: WakeupTransport;
  logger: Logger;
  /**
   * Records confirmed wake-ups (the store's markPublished), for rows that were made runnable unmarked: the cleaner's,
   * the CLI's and the dashboard's. Default: nothing recorded.
   */
  markConfirmed?: PublicationMark;
  /**
   * Records failed wake-ups (the store's markUnpublished), for rows inserted already marked published: the
   * extension's. Default: nothing recorded.
   */
  markFailed?: PublicationMark;
  /** Told of every id whose wake-up was not confirmed. */
  onFailed?: (ids: string[], error: Error) => void;
  /** How long the first send waits for the first connection, in ms. Default 2000. */
  connectTimeoutMs?: number;
}

export class WakeupSender {
  private readonly publisher: WakeupPublisher;
  private readonly confirmedMarker: PublishedMarker | undefined;
  private readonly failedMarker: PublishedMarker | undefined;
  /** The calls of sendAndCount waiting for their ids' confirmations. */
  private readonly counting = new Set<{ ids: Set<string>; confirmed: number }>();

  constructor(options: WakeupSenderOptions) {
    const { logger } = options;
    this.confirmedMarker = options.markConfirmed && new PublishedMarker(options.markConfirmed, logger);
    this.failedMarker = options.markFailed && new PublishedMarker(options.markFailed, logger);
    this.publisher = options.transport.publisher({
      connectTimeoutMs: options.connectTimeoutMs,
      onConfirmed: (ids) => {
        this.confirmedMarker?.add(ids);
        for (const call of this.counting) for (const id of ids) if (call.ids.has(id)) call.confirmed += 1;
      },
      onFailed: (ids, error) => {
        this.failedMarker?.add(ids);
        options.onFailed?.(ids, error);
      },
    });
  }

  /**
   * Hands the wake-ups over (they leave with this event-loop turn's batch); their fate is recorded as it comes. Those
   * with `dueAt` (tasks due later) go as wake-ups that say when, where the transport carries them; nothing is recorded
   * of them, their rows stay unpublished.
   */
  send(wakeups: readonly WakeupTarget[]): void {
    if (wakeups.length === 1 && wakeups[0]!.dueAt === undefined) {
      this.publish(wakeups[0]!.queue, [wakeups[0]!.id]);
      return;
    }
    const byQueue = new Map<string, string[]>();
    const laterByQueue = new Map<string, DueLaterWakeup[]>();
    for (const { id, queue, dueAt } of wakeups) {
      if (dueAt !== undefined) {
        const later = laterByQueue.get(queue);
        if (later) later.push({ id, dueAt });
        else laterByQueue.set(queue, [{ id, dueAt }]);
        continue;
      }
      const ids = byQueue.get(queue);
      if (ids) ids.push(id);
      else byQueue.set(queue, [id]);
    }
    for (const [queue, ids] of byQueue) this.publish(queue, ids);
    for (const [queue, later] of laterByQueue) this.publisher.publishLater?.(queue, later);
  }

  private publish(queue: string, ids: string[]): void {
    traceWakeups(traceChannels.wakeupsSent, queue, ids);
    this.publisher.publish(queue, ids);
  }

  /** Sends the wake-ups and resolves, once they are confirmed (or failed) and recorded, with how many were confirmed. */
  async sendAndCount(wakeups: readonly WakeupTarget[]): Promise<number> {
    if (wakeups.length === 0) return 0;
    const call = { ids: new Set(wakeups.map((wakeup) => wakeup.id)), confirmed: 0 };
    this.counting.add(call);
    try {
      this.send(wakeups);
      await this.flush();
      return call.confirmed;
    } finally {
      this.counting.delete(call);
    }
  }

  /** Announces a dead task; rejects when the transport did not confirm it (or has no dead-letter exchange). */
  notifyDead(notification: DeadTaskNotification): Promise<void> {
    return this.publisher.notifyDead(notification);
  }

  /** Resolves when every wake-up handed over so far is confirmed or failed, and recorded. Never rejects. */
  async flush(): Promise<void> {
    await this.publisher.flush();
    await this.confirmedMarker?.flush();
    await this.failedMarker?.flush();
  }

  /** Flushes and stops sending. The transport is its owner's to close. */
  async close(): Promise<void> {
    await this.publisher.close();
    await this.confirmedMarker?.flush();
    await this.failedMarker?.flush();
  }
}
