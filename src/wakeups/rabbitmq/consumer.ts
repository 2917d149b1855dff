// Consumes the wake-up queues of the worker's task queues, on one channel per connection, and consumes again after
// every reconnect. A malformed body is acked and logged; a good one is acked once its ids are claimed or dropped, or,
// for tasks due later, once the worker keeps them for their time.

import { EventEmitter } from "node:events";
import type { Channel, ChannelModel, ConsumeMessage } from "amqplib";
import { errorMessage } from "../../error-text.js";
import type { Logger } from "../../logger.js";
import type { ListenOptions, WakeupListener } from "../transport.js";
import type { BrokerConnection } from "./connection.js";
import { declareExchanges, declareQueue, type Topology } from "./topology.js";
import { decodeWakeup } from "./wakeup-message.js";
import { queueCounts } from "./queue-counts.js";

interface WakeupConsumerOptions extends ListenOptions {
  connection: BrokerConnection;
  topology: Topology;
  logger: Logger;
}

const REATTACH_DELAY_MS = 1000;

/** Emits 'consuming' when wake-ups flow and 'idle' when they stop (connection or channel lost, cancelled). */
export class WakeupConsumer extends EventEmitter implements WakeupListener {
  private channel: Channel | undefined;
  private consumerTags: string[] = [];
  private stopped = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private attaching: Promise<void> | undefined;
  private failures = 0;
  private readonly onConnected = (model: ChannelModel) => this.attach(model);
  private readonly onDisconnected = () => this.setIdle();

  constructor(private readonly options: WakeupConsumerOptions) {
    super();
  }

  /** True while every queue has a live consumer. */
  consuming = false;

  /** Starts consuming now (if connected) and after every (re)connect. */
  start(): void {
    const { connection } = this.options;
    connection.on("connected", this.onConnected);
    connection.on("disconnected", this.onDisconnected);
    if (connection.model) this.attach(connection.model);
    else connection.start();
  }

  /** Resolves true once consuming, false after `timeoutMs` without. */
  waitConsuming(timeoutMs: number): Promise<boolean> {
    if (this.consuming) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish(false), timeoutMs);
      const finish = (ok: boolean) => {
        clearTimeout(timer);
        this.off("consuming", onConsuming);
        resolve(ok);
      };
      const onConsuming = () => finish(true);
      this.on("consuming", onConsuming);
    });
  }

  /** Stops taking new wake-ups; the channel stays open so the wake-ups in hand can still be acked or handed back. */
  async cancel(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.options.connection.off("connected", this.onConnected);
    this.options.connection.off("disconnected", this.onDisconnected);
    await this.attaching;
    const channel = this.channel;
    const tags = this.consumerTags.splice(0);
    this.setIdle();
    if (channel) for (const tag of tags) await channel.cancel(tag).catch(() => {});
  }

  /** Cancels and closes the channel; wake-ups not acked by then go back to the queue. */
  async close(): Promise<void> {
    await this.cancel();
    const channel = this.channel;
    this.channel = undefined;
    await channel?.close().catch(() => {});
  }

  private attach(model: ChannelModel): void {
    if (this.stopped) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const attaching = this.open(model).finally(() => {
      if (this.attaching === attaching) this.attaching = undefined;
    });
    this.attaching = attaching;
  }

  private async open(model: ChannelModel): Promise<void> {
    const { topology, queues, prefetch, logger } = this.options;
    let channel: Channel | undefined;
    try {
      channel = await model.createChannel();
      const opened = channel;
      opened.on("error", (error: Error) => logger.warn("wake-up channel error", { error: error.message }));
      opened.on("close", () => this.channelClosed(opened, model));
      await opened.prefetch(prefetch);
      await declareExchanges(opened, topology);
      this.channel = opened;
      const tags: string[] = [];
      for (const queue of queues) {
        const name = await declareQueue(opened, topology, queue);
        const { consumerTag } = await opened.consume(name, (message) => this.received(opened, message, queue));
        tags.push(consumerTag);
      }
      if (this.stopped) {
        for (const tag of tags) await opened.cancel(tag).catch(() => {});
        return;
      }
      this.consumerTags = tags;
      this.failures = 0;
      this.consuming = true;
      logger.info("consuming wake-ups", { queues: queues.map((q) => topology.queueName(q)), prefetch });
      this.emit("consuming");
    } catch (error) {
      this.failures += 1;
      if (this.failures === 1 || this.failures % 30 === 0) {
        logger.warn("could not consume wake-ups; polling meanwhile", { error: errorMessage(error), failures: this.failures });
      }
      await channel?.close().catch(() => {});
      this.retryLater(model);
    }
  }

  private channelClosed(channel: Channel, model: ChannelModel): void {
    if (this.channel !== channel) return;
    this.channel = undefined;
    this.consumerTags = [];
    this.setIdle();
    this.retryLater(model);
  }

  /** The connection is alive but the channel is not (e.g. a queue was deleted): consume again after a pause. */
  private retryLater(model: ChannelModel): void {
    if (this.stopped || this.options.connection.model !== model || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.options.connection.model === model) this.attach(model);
    }, REATTACH_DELAY_MS);
  }

  private setIdle(): void {
    if (!this.consuming) return;
    this.consuming = false;
    this.emit("idle");
  }

  /**
   * How many consumers the wake-up queue of `queue` has (this worker's included) and how many messages wait in it
   * ready; undefined when the broker could not tell. Asked on a channel of its own, so that a broker error cannot close
   * the consuming one.
   */
  queueState(queue: string): Promise<{ consumers: number; ready: number } | undefined> {
    return queueCounts(this.options.connection, this.options.topology, queue);
  }

  private received(channel: Channel, message: ConsumeMessage | null, queue: string): void {
    const { logger } = this.options;
    if (message === null) {
      // The broker cancelled the consumer (its queue was deleted): reopen, which re-declares the queue.
      logger.warn("wake-up consumer cancelled by the broker; consuming again", {});
      void channel.close().catch(() => {});
      return;
    }
    const decoded = decodeWakeup(message.content);
    if ("problem" in decoded) {
      logger.warn("malformed wake-up dropped", { problem: decoded.problem, bytes: message.content.length });
      this.settle(channel, message, true);
      return;
    }
    const ids = decoded.ids.map((id) => id.toLowerCase());
    const { dueInMs } = decoded;
    if (dueInMs && this.options.deliverLater) {
      // Tasks due later: the worker keeps a timer for each. The row is the truth and the cleaner wakes them when due,
      // so the message is acked now rather than held until then.
      const now = performance.now();
      this.options.deliverLater(
        ids.map((id, i) => ({ id, dueAt: now + dueInMs[i]! })),
        queue,
      );
      this.settle(channel, message, true);
      return;
    }
    this.options.deliver(ids, queue).then(
      (ack) => this.settle(channel, message, ack),
      (error: unknown) => {
        logger.error("wake-up handling failed; handing it back", { error: errorMessage(error) });
        this.settle(channel, message, false);
      },
    );
  }

  private settle(channel: Channel, message: ConsumeMessage, ack: boolean): void {
    try {
      if (ack) channel.ack(message);
      else channel.nack(message, false, true);
    } catch {
      // The channel closed meanwhile: the broker re-delivers the message, and its ids are found claimed or pending.
    }
  }
}
