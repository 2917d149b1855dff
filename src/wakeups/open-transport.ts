// The one place where options become a wake-up transport: the extension, the worker, the cleaner, the CLI and the
// dashboard all call it with the same naming options, so they all declare the same exchange and queues the same way.

import { amqpUrlProblem } from "../amqp-url.js";
import { TaskQueueConfigError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { NamingOptions } from "../naming-options.js";
import { InProcessTransport } from "./in-process-transport.js";
import { PollingTransport } from "./polling-transport.js";
import { RabbitMqTransport } from "./rabbitmq/rabbitmq-transport.js";
import { topology } from "./rabbitmq/topology.js";
import type { WakeupTransport } from "./transport.js";

export interface TransportOptions extends Pick<NamingOptions, "amqpPrefix" | "quorumQueues"> {
  /** RabbitMQ URL; without it (or empty, as an unset environment variable often is), the polling fallback. */
  amqpUrl?: string;
  logger: Logger;
  /** Longest pause between reconnect attempts (a short-lived CLI command waits less). */
  maxReconnectDelayMs?: number;
  /**
   * Without a broker: deliver wake-ups to workers of this process that use the same database (SQLite, the embedded
   * default). The database's identity, or null when it is not known yet (the app's client learns it at first use).
   */
  inProcess?: string | null;
}

/** Throws TaskQueueConfigError for a bad broker URL or prefix. openTransport() checks the same. */
export function checkTransportOptions(options: Omit<TransportOptions, "logger">): void {
  topology(options.amqpPrefix, options.quorumQueues ?? false);
  if (options.amqpUrl === undefined || options.amqpUrl === "") return;
  const problem = amqpUrlProblem(options.amqpUrl);
  if (problem) throw new TaskQueueConfigError("amqpUrl", `${problem}.`);
}

/** The transport the options describe. Throws TaskQueueConfigError for a bad URL or prefix, before anything connects. */
export function openTransport(options: TransportOptions): WakeupTransport {
  checkTransportOptions(options);
  const names = topology(options.amqpPrefix, options.quorumQueues ?? false);
  if (options.amqpUrl === undefined || options.amqpUrl === "") {
    return options.inProcess === undefined ? new PollingTransport() : new InProcessTransport(options.inProcess ?? undefined);
  }
  return new RabbitMqTransport({
    url: options.amqpUrl,
    topology: names,
    logger: options.logger,
    maxReconnectDelayMs: options.maxReconnectDelayMs,
  });
}
