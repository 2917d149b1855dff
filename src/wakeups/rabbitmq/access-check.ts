// One connection that proves RabbitMQ accepts the credentials and the virtual host, opened and closed before anything
// else starts. A refusal becomes one TaskQueueConfigError naming the fix; an unreachable broker is no error.

import type { ChannelModel } from "amqplib";
import { TaskQueueConfigError } from "../../errors.js";
import { amqpClient } from "./amqp-client.js";
import { classifyBrokerError } from "./broker-errors.js";
import { closeConnection } from "./connection.js";

/**
 * Opens and closes one broker connection. Rejects only when the broker answered and refused (credentials, virtual
 * host, TLS certificate) or the URL cannot be used: waiting will not help. An unreachable broker is fine here: workers poll until it is back.
 */
export async function checkBrokerAccess(url: string, timeoutMs = 2000): Promise<void> {
  const amqp = amqpClient();
  let model: ChannelModel | undefined;
  try {
    model = await amqp.connect(url, { timeout: timeoutMs, noDelay: true });
  } catch (error) {
    const failure = classifyBrokerError(error, url);
    // An unknown host is no reason to refuse: in a container network the broker's name resolves once it runs.
    if (failure.state === "refused") throw new TaskQueueConfigError("amqpUrl", `${failure.fix}. (${failure.error})`);
    return;
  }
  model.on("error", () => {});
  await closeConnection(model, timeoutMs);
}
