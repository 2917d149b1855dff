// RabbitMQ names and their idempotent declaration: one direct exchange, one durable queue per task queue,
// and a fanout dead-letter exchange with a durable queue for dead-task notifications.

import type { Channel } from "amqplib";
import { TaskQueueConfigError } from "../../errors.js";

const PREFIX = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

/** Whether `prefix` can name the broker's exchanges and queues: 1-100 letters, digits, "_", "." or "-", first alphanumeric. */
export function isUsablePrefix(prefix: string): boolean {
  return PREFIX.test(prefix);
}

/** The broker names derived from one prefix. */
export interface Topology {
  /** Direct exchange that wake-ups are published to; the routing key is the task queue's name. */
  readonly exchange: string;
  /** Fanout exchange that dead-task notifications are published to. */
  readonly deadLetterExchange: string;
  /** Durable queue bound to the dead-letter exchange, so notifications wait for an operator. */
  readonly deadLetterQueue: string;
  /** Declare quorum queues (replicated, for clusters) instead of classic ones. */
  readonly quorum: boolean;
  /** The RabbitMQ queue that carries wake-ups for task queue `queue`. */
  queueName(queue: string): string;
}

/** Builds the names. `prefix` defaults to "task_queue"; use another to run two apps on one broker. */
export function topology(prefix = "task_queue", quorum = false): Topology {
  if (!isUsablePrefix(prefix)) {
    throw new TaskQueueConfigError("amqpPrefix", `${JSON.stringify(prefix)} is not usable; use 1-100 letters, digits, "_", "." or "-".`);
  }
  return {
    exchange: prefix,
    deadLetterExchange: `${prefix}.dead`,
    deadLetterQueue: `${prefix}.dead`,
    quorum,
    queueName: (queue) => `${prefix}.q.${queue}`,
  };
}

/** Declares both exchanges and the dead-letter queue. Safe to call any number of times. */
export async function declareExchanges(channel: Channel, names: Topology): Promise<void> {
  await channel.assertExchange(names.exchange, "direct", { durable: true });
  await channel.assertExchange(names.deadLetterExchange, "fanout", { durable: true });
  await channel.assertQueue(names.deadLetterQueue, queueOptions(names));
  await channel.bindQueue(names.deadLetterQueue, names.deadLetterExchange, "");
}

/** Declares the queue of task queue `queue` and binds it. Safe to call any number of times. */
export async function declareQueue(channel: Channel, names: Topology, queue: string): Promise<string> {
  const name = names.queueName(queue);
  await channel.assertQueue(name, queueOptions(names));
  await channel.bindQueue(name, names.exchange, queue);
  return name;
}

function queueOptions(names: Topology) {
  return { durable: true, arguments: names.quorum ? { "x-queue-type": "quorum" } : {} };
}
