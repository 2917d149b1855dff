// One connection that proves RabbitMQ accepts the credentials and the virtual host, opened and closed before anything
// else starts. A refusal becomes one TaskQueueConfigError with the password hidden; an unreachable broker is no error.

import amqp from "amqplib";
import { TaskQueueConfigError } from "../../errors.js";
import { redactUrl } from "../../redact-url.js";
import { closeConnection } from "./connection.js";

/**
 * Opens and closes one broker connection. Rejects only when the broker answered and refused (credentials, virtual
 * host): that will not heal by waiting. An unreachable broker is fine here: workers poll until it is back.
 */
export async function checkBrokerAccess(url: string, timeoutMs = 2000): Promise<void> {
  let model: amqp.ChannelModel | undefined;
  try {
    model = await amqp.connect(url, { timeout: timeoutMs, noDelay: true });
  } catch (error) {
    const message = (error as Error)?.message ?? String(error);
    let advice: string | undefined;
    if (/ACCESS[-_]REFUSED/.test(message)) advice = "the credentials were refused: check the user and password in amqpUrl";
    else if (/Expected ConnectionOpenOk; got <ConnectionClose/.test(message)) {
      advice = "the broker closed the connection while opening it: check that the virtual host in amqpUrl exists and the user may use it";
    }
    if (advice) throw new TaskQueueConfigError("amqpUrl", `RabbitMQ at ${redactUrl(url)} refused the worker: ${message}; ${advice}.`);
    return;
  }
  model.on("error", () => {});
  await closeConnection(model, timeoutMs);
}
