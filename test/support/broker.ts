// Broker helpers for tests: a unique prefix per test file, a consumer that counts the ids it receives,
// and removal of everything declared under the prefix.

import { randomBytes } from "node:crypto";
import amqp from "amqplib";
import { inject } from "vitest";
import { decodeWakeup } from "../../src/wakeups/rabbitmq/wakeup-message.js";
import { declareExchanges, declareQueue, topology, type Topology } from "../../src/wakeups/rabbitmq/topology.js";

/** Publishes raw message bodies to the wake-up queue of `queue` under `prefix` (declaring it first), confirmed. */
export async function publishBodies(amqpUrl: string, prefix: string, bodies: readonly Buffer[], queue = "default"): Promise<void> {
  const model = await amqp.connect(amqpUrl);
  try {
    const channel = await model.createConfirmChannel();
    const names = topology(prefix);
    await declareExchanges(channel, names);
    await declareQueue(channel, names, queue);
    for (const body of bodies) channel.publish(names.exchange, queue, body);
    await channel.waitForConfirms();
  } finally {
    await model.close();
  }
}

export function uniquePrefix(): string {
  return `ptq_test_${randomBytes(5).toString("hex")}`;
}

/** Counts task ids arriving on the queues of `queues` under `prefix`. */
export class WakeupCounter {
  /** Wake-ups of tasks due now, per id. */
  readonly counts = new Map<string, number>();
  /** Wake-ups of tasks due later, per id: the ms until due each one said. */
  readonly later = new Map<string, number[]>();
  readonly bodies: Buffer[] = [];
  /** The delivery mode of every message received (2 persistent, 1 or undefined transient). */
  readonly deliveryModes: Array<number | undefined> = [];
  private constructor(
    private readonly model: amqp.ChannelModel,
    private readonly names: Topology,
    private readonly queues: string[],
  ) {}

  static async start(prefix: string, queues: string[] = ["default"]): Promise<WakeupCounter> {
    const model = await amqp.connect(inject("amqpUrl"));
    const names = topology(prefix);
    const counter = new WakeupCounter(model, names, queues);
    const channel = await model.createChannel();
    await declareExchanges(channel, names);
    for (const queue of queues) {
      const name = await declareQueue(channel, names, queue);
      await channel.consume(name, (message) => {
        if (!message) return;
        counter.bodies.push(message.content);
        counter.deliveryModes.push(message.properties.deliveryMode as number | undefined);
        const decoded = decodeWakeup(message.content);
        if ("ids" in decoded && decoded.dueInMs) decoded.ids.forEach((id, i) => counter.later.set(id, [...(counter.later.get(id) ?? []), decoded.dueInMs![i]!]));
        else if ("ids" in decoded) for (const id of decoded.ids) counter.counts.set(id, (counter.counts.get(id) ?? 0) + 1);
        channel.ack(message);
      });
    }
    return counter;
  }

  /** Total ids received. */
  get total(): number {
    let sum = 0;
    for (const count of this.counts.values()) sum += count;
    return sum;
  }

  /** Waits until `predicate` holds, polling; fails with `what` after `timeoutMs`. */
  async waitFor(predicate: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; received ${JSON.stringify([...this.counts])}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** Lets in-flight messages arrive, so a test that expects "nothing more" can say so. */
  async settle(ms = 200): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, ms));
  }

  /** Deletes the queues and exchanges under the prefix and closes the connection. */
  async close(): Promise<void> {
    const channel = await this.model.createChannel();
    for (const queue of this.queues) await channel.deleteQueue(this.names.queueName(queue));
    await channel.deleteQueue(this.names.deadLetterQueue);
    await channel.deleteExchange(this.names.exchange);
    await channel.deleteExchange(this.names.deadLetterExchange);
    await this.model.close();
  }
}
