// Reads dead-task notifications from the dead-letter queue of a prefix (declared by WakeupCounter.start).

import amqp from "amqplib";
import { inject } from "vitest";
import { topology } from "../../src/wakeups/rabbitmq/topology.js";

export class DeadLetters {
  readonly received: Array<Record<string, unknown>> = [];
  private constructor(private readonly model: amqp.ChannelModel) {}

  static async start(prefix: string): Promise<DeadLetters> {
    const model = await amqp.connect(inject("amqpUrl"));
    const letters = new DeadLetters(model);
    const channel = await model.createChannel();
    await channel.consume(topology(prefix).deadLetterQueue, (message) => {
      if (!message) return;
      letters.received.push(JSON.parse(message.content.toString("utf8")) as Record<string, unknown>);
      channel.ack(message);
    });
    return letters;
  }

  for(id: string): Array<Record<string, unknown>> {
    return this.received.filter((letter) => letter.id === id);
  }

  close(): Promise<void> {
    return this.model.close();
  }
}
