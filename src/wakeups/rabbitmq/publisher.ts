// Publishes wake-ups on a confirm channel, coalescing ids per queue within one event-loop turn.
// It never throws at its callers: failures go to the logger and `onFailed`, so rows stay unpublished for the cleaner.

import type { ChannelModel, ConfirmChannel } from "amqplib";
import type { Logger } from "../../logger.js";
import { traceChannels, traceWakeups } from "../../trace/channels.js";
import type { DeadTaskNotification } from "../dead-task-notification.js";
import type { DueLaterWakeup, PublishHooks, WakeupPublisher } from "../transport.js";
import { WakeupBrokerError } from "../wakeup-errors.js";
import { valueText } from "../../value-text.js";
import type { BrokerConnection } from "./connection.js";
import { declareExchanges, declareQueue, type Topology } from "./topology.js";
import { encodeWakeup, MAX_IDS_PER_MESSAGE } from "./wakeup-message.js";

/** Wake-ups of one message that were not confirmed; `nacked` when the broker refused them rather than losing them. */
interface ChunkFailure {
  ids: string[];
  error: Error;
  nacked: boolean;
}

interface PublisherOptions extends PublishHooks {
  connection: BrokerConnection;
  topology: Topology;
  logger: Logger;
}

/** Batching confirm publisher of wake-up messages (connectTimeoutMs default 2000 ms). */
export class Publisher implements WakeupPublisher {
  private pending = new Map<string, string[]>();
  private pendingLater = new Map<string, DueLaterWakeup[]>();
  private scheduled = false;
  private inflight = new Set<Promise<void>>();
  private channel: Promise<ConfirmChannel> | undefined;
  private channelModel: ChannelModel | undefined;
  private declared = new Set<string>();
  private closed = false;

  constructor(private readonly options: PublisherOptions) {}

  /** Queues wake-ups for `ids` in task queue `queue`; they leave with the next flush (this turn of the event loop). */
  publish(queue: string, ids: readonly string[]): void {
    if (ids.length === 0) return;
    if (this.closed) {
      this.fail([...ids], new WakeupBrokerError("the wake-up publisher is closed: the worker or queue handle that owned it was closed"));
      return;
    }
    const list = this.pending.get(queue);
    if (list) list.push(...ids);
    else this.pending.set(queue, [...ids]);
    this.schedule();
  }

  /**
   * Queues wake-ups of tasks due later; each leaves telling how long until its task is due, counted when it is sent. A
   * failure is only logged: the rows are unpublished, and the cleaner wakes them when due.
   */
  publishLater(queue: string, wakeups: readonly DueLaterWakeup[]): void {
    if (wakeups.length === 0 || this.closed) return;
    const list = this.pendingLater.get(queue);
    if (list) list.push(...wakeups);
    else this.pendingLater.set(queue, [...wakeups]);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.track(this.flushPending()));
  }

  /**
   * Publishes a dead-task notification to the dead-letter exchange and resolves once the broker confirmed it.
   * Rejects when it could not: the caller logs it (the task is dead in the database either way).
   */
  async notifyDead(notification: DeadTaskNotification): Promise<void> {
    const channel = await this.openChannel();
    await new Promise<void>((resolve, reject) => {
      const body = Buffer.from(JSON.stringify(notification));
      const options = { persistent: true, contentType: "application/json", type: "task.dead" };
      channel.publish(this.options.topology.deadLetterExchange, notification.queue, body, options, (error: unknown) =>
        error ? reject(error instanceof Error ? error : new WakeupBrokerError(`broker nacked the message: ${valueText(error)}`)) : resolve(),
      );
    });
  }

  /** Resolves when every wake-up handed over so far is confirmed or has failed. Never rejects. */
  async flush(): Promise<void> {
    if (this.scheduled || this.pending.size > 0 || this.pendingLater.size > 0) {
      this.scheduled = false;
      this.track(this.flushPending());
    }
    while (this.inflight.size > 0) await Promise.all([...this.inflight]);
  }

  /** Flushes, then stops accepting wake-ups and closes its channel. The connection is the owner's to close. */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    const channel = await this.channel?.catch(() => undefined);
    this.channel = undefined;
    await channel?.close().catch(() => {});
  }

  private track(work: Promise<void>): void {
    this.inflight.add(work);
    void work.finally(() => this.inflight.delete(work));
  }

  private async flushPending(): Promise<void> {
    this.scheduled = false;
    const batches = this.pending;
    const later = this.pendingLater;
    this.pending = new Map();
    this.pendingLater = new Map();
    if (batches.size === 0 && later.size === 0) return;
    let channel: ConfirmChannel;
    try {
      channel = await this.openChannel();
    } catch (error) {
      for (const ids of batches.values()) this.fail(ids, error as Error);
      if (later.size > 0) this.failLater(error as Error);
      return;
    }
    await Promise.all([
      ...[...batches].map(([queue, ids]) => this.send(channel, queue, ids)),
      ...[...later].map(([queue, wakeups]) => this.sendLater(channel, queue, wakeups)),
    ]);
  }

  /** Sends wake-ups of tasks due later, each with the time left until its task is due as it leaves. */
  private async sendLater(channel: ConfirmChannel, queue: string, wakeups: DueLaterWakeup[]): Promise<void> {
    try {
      await this.declare(channel, queue);
      const now = performance.now();
      const sends: Promise<void>[] = [];
      for (let start = 0; start < wakeups.length; start += MAX_IDS_PER_MESSAGE) {
        const chunk = wakeups.slice(start, start + MAX_IDS_PER_MESSAGE);
        const body = encodeWakeup(
          chunk.map((wakeup) => wakeup.id),
          chunk.map((wakeup) => Math.max(0, Math.ceil(wakeup.dueAt - now))),
        );
        sends.push(
          new Promise((resolve) => {
            channel.publish(this.options.topology.exchange, queue, body, { persistent: false, contentType: "application/json" }, (error: unknown) => {
              if (error) this.failLater(error instanceof Error ? error : new WakeupBrokerError(`broker nacked the wake-up: ${valueText(error)}`));
              resolve();
            });
          }),
        );
      }
      await Promise.all(sends);
    } catch (error) {
      this.failLater(error as Error);
    }
  }

  private async declare(channel: ConfirmChannel, queue: string): Promise<void> {
    if (this.declared.has(queue)) return;
    await declareQueue(channel, this.options.topology, queue);
    this.declared.add(queue);
  }

  /**
   * Sends the wake-ups of `ids` and waits for the broker's confirms. Those lost with the channel or the connection (a
   * node of a cluster went away) are sent once more on the next channel, which may be on another node; a wake-up that
   * fails again, or that the broker refused, is left to the cleaner.
   */
  private async send(channel: ConfirmChannel, queue: string, ids: string[], again = true): Promise<void> {
    let failed: ChunkFailure[];
    try {
      await this.declare(channel, queue);
      const chunks: string[][] = [];
      for (let start = 0; start < ids.length; start += MAX_IDS_PER_MESSAGE) chunks.push(ids.slice(start, start + MAX_IDS_PER_MESSAGE));
      const results = await Promise.all(chunks.map((chunk) => this.sendOne(channel, queue, chunk)));
      failed = results.filter((result) => result !== undefined);
    } catch (error) {
      failed = [{ ids, error: error as Error, nacked: false }];
    }
    const retried = again && !this.closed ? failed.filter((failure) => !failure.nacked) : [];
    for (const failure of failed) if (!retried.includes(failure)) this.fail(failure.ids, failure.error);
    if (retried.length === 0) return;
    let next: ConfirmChannel;
    try {
      next = await this.openChannel();
    } catch {
      for (const failure of retried) this.fail(failure.ids, failure.error);
      return;
    }
    this.options.logger.debug("wake-ups lost with the broker connection; sending them again", { count: retried.reduce((n, f) => n + f.ids.length, 0) });
    await this.send(
      next,
      queue,
      retried.flatMap((failure) => failure.ids),
      false,
    );
  }

  /** Publishes one message; resolves undefined once confirmed, or with what failed. */
  private sendOne(channel: ConfirmChannel, queue: string, ids: string[]): Promise<ChunkFailure | undefined> {
    return new Promise((resolve) => {
      const body = encodeWakeup(ids);
      // Transient: a wake-up is a hint, the row is the truth. A RabbitMQ restart drops queued wake-ups and the cleaner
      // re-sends them once they are republishAfterMs old; in exchange the broker writes nothing to disk per message
      // (enqueue in a transaction, concurrency 10, measured here: +25 % tx/s). Quorum queues store them regardless.
      const options = { persistent: false, contentType: "application/json" };
      try {
        traceWakeups(traceChannels.wakeupsPublished, queue, ids);
        channel.publish(this.options.topology.exchange, queue, body, options, (error: unknown) => {
          if (!error) {
            this.options.onConfirmed?.(ids);
            resolve(undefined);
            return;
          }
          const nacked = error instanceof Error && error.message === "message nacked";
          resolve({ ids, error: error instanceof Error ? error : new WakeupBrokerError(`broker nacked the wake-up: ${valueText(error)}`), nacked });
        });
      } catch (error) {
        resolve({ ids, error: error as Error, nacked: false });
      }
    });
  }

  private async openChannel(): Promise<ConfirmChannel> {
    const { connection } = this.options;
    const model = connection.model ?? (connection.down ? undefined : await connection.ready(this.options.connectTimeoutMs ?? 2000));
    if (!model) {
      const { state, fix } = connection.state;
      throw new WakeupBrokerError(`broker is not connected (${state}${fix ? `: ${fix}` : ""})`);
    }
    if (this.channel && this.channelModel === model) return this.channel;
    this.channelModel = model;
    this.declared.clear();
    const opening = (async () => {
      const channel = await model.createConfirmChannel();
      channel.on("error", () => {}); // 'close' follows; callbacks of unconfirmed publishes receive the error
      channel.on("close", () => {
        if (this.channel === opening) this.channel = undefined;
      });
      await declareExchanges(channel, this.options.topology);
      return channel;
    })();
    this.channel = opening;
    opening.catch(() => {
      if (this.channel === opening) this.channel = undefined;
    });
    return opening;
  }

  private failLater(error: Error): void {
    this.options.logger.debug("wake-up of tasks due later not published; the cleaner wakes them when due", { error: error.message });
  }

  private fail(ids: string[], error: Error): void {
    this.options.logger.warn("wake-up not published; the cleaner will re-publish", { count: ids.length, error: error.message });
    this.options.onFailed?.(ids, error);
  }
}
