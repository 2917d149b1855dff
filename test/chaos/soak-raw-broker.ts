// The soak's own channel to the broker, past the proxies: its duplicate, phantom and early wake-ups and its queue checks.
// It rides the product's BrokerConnection, so on a cluster it follows the nodes when the one it is on goes away.

import type { ChannelModel, ConfirmChannel } from "amqplib";
import { silentLogger } from "../../src/index.js";
import { BrokerConnection } from "../../src/wakeups/rabbitmq/connection.js";
import { declareExchanges, declareQueue, type Topology } from "../../src/wakeups/rabbitmq/topology.js";
import { encodeWakeup } from "../../src/wakeups/rabbitmq/wakeup-message.js";

export class RawBroker {
  private channel: ConfirmChannel | undefined;
  private model: ChannelModel | undefined;
  private opening: Promise<ConfirmChannel | undefined> | undefined;

  private constructor(
    private readonly connection: BrokerConnection,
    private readonly names: Topology,
  ) {}

  /** Connects to `url` (one URL or several separated by commas) and declares the exchanges and the default queue. */
  static async open(url: string, names: Topology): Promise<RawBroker> {
    const broker = new RawBroker(new BrokerConnection(url, { logger: silentLogger }), names);
    if (!(await broker.ready())) throw new Error(`the soak could not reach RabbitMQ at ${url}`);
    return broker;
  }

  /** Publishes wake-ups of `ids` to the default queue; dropped while no node is reachable (a wake-up is only a hint). */
  publish(ids: string[]): void {
    if (ids.length === 0) return;
    const body = encodeWakeup(ids);
    const send = (channel: ConfirmChannel | undefined) => channel?.publish(this.names.exchange, "default", body, { persistent: true });
    try {
      if (this.channel && this.model === this.connection.model) send(this.channel);
      else void this.ready().then(send, () => {});
    } catch {
      // the channel closed under it: the next publish opens another
    }
  }

  /** Waits until what was published on the current channel is confirmed (never rejects). */
  async waitForConfirms(): Promise<void> {
    await this.channel?.waitForConfirms().catch(() => {});
  }

  /** Wake-ups waiting in the default queue; undefined when no node answered. */
  async depth(): Promise<number | undefined> {
    const channel = await this.ready();
    return channel ? (await channel.checkQueue(this.names.queueName("default"))).messageCount : undefined;
  }

  /** Deletes the queues and exchanges of the soak's prefix, then closes. */
  async deleteAllAndClose(): Promise<void> {
    const channel = await this.ready().catch(() => undefined);
    if (channel) {
      for (const queue of [this.names.queueName("default"), this.names.deadLetterQueue]) await channel.deleteQueue(queue).catch(() => {});
      await channel.deleteExchange(this.names.exchange).catch(() => {});
      await channel.deleteExchange(this.names.deadLetterExchange).catch(() => {});
    }
    await this.connection.close();
  }

  async close(): Promise<void> {
    await this.connection.close();
  }

  private ready(): Promise<ConfirmChannel | undefined> {
    this.opening ??= this.open().finally(() => (this.opening = undefined));
    return this.opening;
  }

  private async open(): Promise<ConfirmChannel | undefined> {
    const model = await this.connection.ready(10_000);
    if (!model) return undefined;
    if (this.channel && this.model === model) return this.channel;
    const channel = await model.createConfirmChannel();
    channel.on("error", () => {});
    channel.on("close", () => {
      if (this.channel === channel) this.channel = undefined;
    });
    await declareExchanges(channel, this.names);
    await declareQueue(channel, this.names, "default");
    this.model = model;
    this.channel = channel;
    return channel;
  }
}
