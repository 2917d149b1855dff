// Wake-ups for tasks an action made runnable: a broker connection and a Publisher opened on first use, with confirmed
// ids recorded as published. Without a broker URL nothing is sent and the cleaner publishes the tasks when it sweeps.

import { BrokerConnection } from "../broker/connection.js";
import { topology } from "../broker/topology.js";
import type { Db } from "../db/driver.js";
import type { TaskTable } from "../db/table.js";
import type { Logger } from "../logger.js";
import { PublishedMarker } from "../publishing/published-marker.js";
import { Publisher } from "../publishing/publisher.js";
import type { ChangedTask } from "../sql/operator-actions.js";

export class Wakeups {
  private connection: BrokerConnection | undefined;
  private publisher: Publisher | undefined;
  private readonly marker: PublishedMarker;
  private readonly waiting = new Set<{ ids: Set<string>; confirmed: number }>();
  private closed = false;

  constructor(
    private readonly amqpUrl: string | undefined,
    private readonly amqpPrefix: string | undefined,
    db: Db,
    table: TaskTable,
    private readonly logger: Logger,
  ) {
    topology(amqpPrefix); // validates the prefix now, not at the first action
    this.marker = new PublishedMarker(db, table, logger);
  }

  /** True when a broker URL was given. */
  get enabled(): boolean {
    return this.amqpUrl !== undefined;
  }

  /**
   * Publishes a wake-up per changed task and waits until the broker confirmed them or they failed (failures are logged
   * and the cleaner re-publishes). Returns how many of them the broker confirmed.
   */
  async publish(tasks: readonly ChangedTask[]): Promise<number> {
    if (!this.amqpUrl || this.closed || tasks.length === 0) return 0;
    const publisher = this.open();
    const call = { ids: new Set(tasks.map((task) => task.id)), confirmed: 0 };
    this.waiting.add(call);
    try {
      const byQueue = new Map<string, string[]>();
      for (const task of tasks) byQueue.set(task.queue, [...(byQueue.get(task.queue) ?? []), task.id]);
      for (const [queue, ids] of byQueue) publisher.publish(queue, ids);
      await publisher.flush();
      await this.marker.flush();
      return call.confirmed;
    } finally {
      this.waiting.delete(call);
    }
  }

  private open(): Publisher {
    if (this.publisher) return this.publisher;
    this.connection = new BrokerConnection(this.amqpUrl!, { logger: this.logger });
    this.publisher = new Publisher({
      connection: this.connection,
      topology: topology(this.amqpPrefix),
      logger: this.logger,
      onConfirmed: (ids) => {
        this.marker.add(ids);
        for (const call of this.waiting) for (const id of ids) if (call.ids.has(id)) call.confirmed += 1;
      },
    });
    return this.publisher;
  }

  /** Flushes and closes the publisher and the broker connection. */
  async close(): Promise<void> {
    this.closed = true;
    await this.publisher?.close();
    await this.connection?.close();
    await this.marker.flush();
  }
}
