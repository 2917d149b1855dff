// The cleaner's side of RabbitMQ: publishes wake-ups and waits for their confirms (marking the rows published),
// sends dead-letter notifications, and asks queues whether workers listen and whether messages already wait.

import type { Channel } from "amqplib";
import { BrokerConnection } from "../broker/connection.js";
import type { Topology } from "../broker/topology.js";
import type { Db } from "../db/driver.js";
import type { TaskTable } from "../db/table.js";
import type { Logger } from "../logger.js";
import { PublishedMarker } from "../publishing/published-marker.js";
import { Publisher, type DeadTaskNotification } from "../publishing/publisher.js";

export class CleanerBroker {
  private readonly connection: BrokerConnection;
  private readonly publisher: Publisher;
  private readonly marker: PublishedMarker;
  private confirmed = 0;

  constructor(
    url: string,
    private readonly topology: Topology,
    db: Db,
    table: TaskTable,
    logger: Logger,
  ) {
    this.connection = new BrokerConnection(url, { logger });
    this.marker = new PublishedMarker(db, table, logger);
    this.publisher = new Publisher({
      connection: this.connection,
      topology,
      logger,
      onConfirmed: (ids) => {
        this.confirmed += ids.length;
        this.marker.add(ids);
      },
    });
  }

  /** Connects in the background. */
  start(): void {
    this.connection.start();
  }

  /** False while the last connection attempt failed and a reconnect is scheduled. */
  get reachable(): boolean {
    return !this.connection.down;
  }

  /** Publishes wake-ups and resolves, once the broker confirmed them and the rows are marked, with how many it confirmed. */
  async publish(tasks: ReadonlyArray<{ id: string; queue: string }>): Promise<number> {
    const before = this.confirmed;
    const byQueue = new Map<string, string[]>();
    for (const { id, queue } of tasks) {
      const ids = byQueue.get(queue);
      if (ids) ids.push(id);
      else byQueue.set(queue, [id]);
    }
    for (const [queue, ids] of byQueue) this.publisher.publish(queue, ids);
    await this.publisher.flush();
    await this.marker.flush();
    return this.confirmed - before;
  }

  /** Sends a dead-letter notification; rejects when the broker did not confirm it. */
  notifyDead(notification: DeadTaskNotification): Promise<void> {
    return this.publisher.notifyDead(notification);
  }

  /**
   * Of `queues`, those that have at least one consumer and no ready message: there a pending task's lost wake-up is
   * worth re-sending. A queue that does not exist has no consumers. Empty while the broker is down.
   */
  async idleQueuesWithConsumers(queues: readonly string[]): Promise<string[]> {
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
          const info = await channel.checkQueue(this.topology.queueName(queue));
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

  async close(): Promise<void> {
    await this.publisher.close();
    await this.marker.flush();
    await this.connection.close();
  }
}
