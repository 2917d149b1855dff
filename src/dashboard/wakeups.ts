// Wake-ups for tasks an action made runnable: the transport and the one sender, opened on first use, with confirmed
// ids recorded as published. With polling nothing is sent and the cleaner publishes the tasks when it sweeps.

import type { Logger } from "../logger.js";
import type { NamingOptions } from "../naming-options.js";
import type { Store } from "../store/store.js";
import type { WakeupTarget } from "../store/task-writes.js";
import { checkTransportOptions, chosenWakeups, openTransport } from "../wakeups/open-transport.js";
import type { WakeupTransport } from "../wakeups/transport.js";
import { WakeupSender } from "../wakeups/wakeup-sender.js";

export class Wakeups {
  private opened: { transport: WakeupTransport; sender: WakeupSender } | undefined;
  private closed = false;

  constructor(
    private readonly options: NamingOptions & { amqpUrl?: string },
    private readonly store: Store,
    private readonly logger: Logger,
  ) {
    checkTransportOptions(options); // a bad URL or prefix fails now, not at the first action
  }

  /** True when wake-ups are sent (RabbitMQ or NOTIFY), false with polling. */
  get enabled(): boolean {
    const choice = chosenWakeups({ ...this.options, store: this.store });
    return choice === "rabbitmq" || choice === "notify";
  }

  /**
   * Publishes a wake-up per changed task and waits until the broker confirmed them or they failed (failures are logged
   * and the cleaner re-publishes). Returns how many of them the broker confirmed.
   */
  async publish(tasks: readonly WakeupTarget[]): Promise<number> {
    if (!this.enabled || this.closed || tasks.length === 0) return 0;
    return this.open().sender.sendAndCount(tasks);
  }

  private open(): { transport: WakeupTransport; sender: WakeupSender } {
    if (this.opened) return this.opened;
    const transport = openTransport({ ...this.options, logger: this.logger, store: this.store });
    const store = this.store;
    const sender = new WakeupSender({ transport, logger: this.logger, markConfirmed: (ids) => store.markPublished(ids) });
    this.opened = { transport, sender };
    return this.opened;
  }

  /** Flushes and closes the sender and the broker connection. */
  async close(): Promise<void> {
    this.closed = true;
    await this.opened?.sender.close();
    await this.opened?.transport.close();
  }
}
