// The RabbitMQ transport: one connection (reconnecting with backoff), confirm-channel publishers, consumers for
// workers, and the queue checks the cleaner and the worker's hand-back need. Names come from one Topology.

import type { Channel } from "amqplib";
import type { Logger } from "../../logger.js";
import type { BrokerState, ListenOptions, PublishHooks, WakeupListener, WakeupPublisher, WakeupTransport } from "../transport.js";
import { checkBrokerAccess } from "./access-check.js";
import { BrokerConnection } from "./connection.js";
import { WakeupConsumer } from "./consumer.js";
import { Publisher } from "./publisher.js";
import { queueCounts } from "./queue-counts.js";
import type { Topology } from "./topology.js";

interface RabbitMqTransportOptions {
  url: string;
  topology: Topology;
  logger: Logger;
  /** Longest pause between reconnect attempts. Default 10 s. */
  maxReconnectDelayMs?: number;
  /** Pause between attempts while the broker refuses (credentials, vhost) or the host is unknown. Default 30 s. */
  lastingRetryDelayMs?: number;
}

export class RabbitMqTransport implements WakeupTransport {
  readonly name = "rabbitmq";
  readonly publishes = true;
  readonly notifiesDead = true;
  private readonly connection: BrokerConnection;

  constructor(private readonly options: RabbitMqTransportOptions) {
    this.connection = new BrokerConnection(options.url, {
      logger: options.logger,
      maxDelayMs: options.maxReconnectDelayMs,
      lastingRetryDelayMs: options.lastingRetryDelayMs,
    });
  }

  get reachable(): boolean {
    return !this.connection.down;
  }

  get broker(): BrokerState {
    return this.connection.state;
  }

  start(): void {
    this.connection.start();
  }

  async settled(timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    this.connection.start();
    const deadline = Date.now() + timeoutMs;
    while (!this.connection.model && !this.connection.down && Date.now() < deadline && !signal?.aborted) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return this.connection.model !== undefined;
  }

  checkAccess(): Promise<void> {
    return checkBrokerAccess(this.options.url);
  }

  publisher(hooks: PublishHooks = {}): WakeupPublisher {
    return new Publisher({ connection: this.connection, topology: this.options.topology, logger: this.options.logger, ...hooks });
  }

  listen(options: ListenOptions): WakeupListener {
    return new WakeupConsumer({ connection: this.connection, topology: this.options.topology, logger: this.options.logger, ...options });
  }

  async idleQueues(queues: readonly string[]): Promise<string[]> {
    if (queues.length === 0) return [];
    const model = this.connection.model ?? (this.connection.down ? undefined : await this.connection.ready(2000));
    if (!model) return [];
    const idle: string[] = [];
    let channel: Channel | undefined;
    try {
      for (const queue of queues) {
        if (!channel) {
          channel = await model.createChannel();
          channel.on("error", () => {});
        }
        try {
          const info = await channel.checkQueue(this.options.topology.queueName(queue));
          if (info.consumerCount > 0 && info.messageCount === 0) idle.push(queue);
        } catch {
          channel = undefined; // a missing queue closes the channel (404); the next queue gets a new one
        }
      }
    } finally {
      await channel?.close().catch(() => {});
    }
    return idle;
  }

  async queueState(queue: string): Promise<{ consumers: number; ready: number } | undefined> {
    return queueCounts(this.connection, this.options.topology, queue);
  }

  close(): Promise<void> {
    return this.connection.close();
  }
}
