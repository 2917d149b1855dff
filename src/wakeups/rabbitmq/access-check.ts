// One connection that proves RabbitMQ accepts the credentials and the virtual host, opened and closed before anything
// else starts. A refusal becomes one TaskQueueConfigError naming the fix; an unreachable broker is no error.

import type { ChannelModel } from "amqplib";
import { amqpUrls } from "../../amqp-url.js";
import { TaskQueueConfigError } from "../../errors.js";
import { amqpClient } from "./amqp-client.js";
import { classifyBrokerError } from "./broker-errors.js";
import { closeConnection } from "./connection.js";

/**
 * Opens and closes one broker connection, to the first node of `url` (one URL, or several separated by commas) that
 * accepts. Rejects only when every node answered and refused (credentials, virtual host, TLS certificate) or the URL
 * cannot be used: waiting will not help. An unreachable broker is fine here: workers poll until it is back.
 */
export async function checkBrokerAccess(url: string, timeoutMs = 2000): Promise<void> {
  const amqp = amqpClient();
  const nodes = amqpUrls(url);
  let refusal: TaskQueueConfigError | undefined;
  for (const node of nodes.length > 0 ? nodes : [url]) {
    let model: ChannelModel;
    try {
      model = await amqp.connect(node, { timeout: timeoutMs, noDelay: true });
    } catch (error) {
      const failure = classifyBrokerError(error, node);
      // An unknown host is no reason to refuse: in a container network the broker's name resolves once it runs.
      if (failure.state !== "refused") return;
      refusal ??= new TaskQueueConfigError("amqpUrl", `${failure.fix}. (${failure.error})`);
      continue;
    }
    model.on("error", () => {});
    await closeConnection(model, timeoutMs);
    return;
  }
  if (refusal) throw refusal;
}
