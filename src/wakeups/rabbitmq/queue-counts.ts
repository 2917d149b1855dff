// How many consumers a task queue's RabbitMQ queue has and how many wake-ups wait in it, read with a passive check on a
// channel of its own (a missing queue closes the channel with 404, which must not touch anyone else's channel).

import type { Channel } from "amqplib";
import type { BrokerConnection } from "./connection.js";
import type { Topology } from "./topology.js";

/** The counts of task queue `queue`, or undefined while not connected or when its queue does not exist. */
export async function queueCounts(connection: BrokerConnection, topology: Topology, queue: string): Promise<{ consumers: number; ready: number } | undefined> {
  const model = connection.model;
  if (!model) return undefined;
  let channel: Channel | undefined;
  try {
    channel = await model.createChannel();
    channel.on("error", () => {});
    const { consumerCount, messageCount } = await channel.checkQueue(topology.queueName(queue));
    return { consumers: consumerCount, ready: messageCount };
  } catch {
    return undefined;
  } finally {
    await channel?.close().catch(() => {});
  }
}
