// The one place where options become a wake-up transport: the extension, the worker, the cleaner, the CLI and the
// dashboard all call it with the same naming options, so they all pick the same transport and names the same way.

import { amqpUrlProblem } from "../amqp-url.js";
import { TaskQueueConfigError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { NamingOptions, WakeupsChoice } from "../naming-options.js";
import type { Store } from "../store/store.js";
import { InProcessTransport } from "./in-process-transport.js";
import { notifyChannel } from "./notify/notify-channel.js";
import { NotifyTransport } from "./notify/notify-transport.js";
import { PollingTransport } from "./polling-transport.js";
import { RabbitMqTransport } from "./rabbitmq/rabbitmq-transport.js";
import { topology } from "./rabbitmq/topology.js";
import type { WakeupTransport } from "./transport.js";

const CHOICES: readonly WakeupsChoice[] = ["rabbitmq", "notify", "polling"];

interface TransportOptions extends Pick<NamingOptions, "amqpPrefix" | "quorumQueues" | "wakeups"> {
  /** RabbitMQ URL; without it (or empty, as an unset environment variable often is), no RabbitMQ. */
  amqpUrl?: string;
  logger: Logger;
  /**
   * The store of the process: its dialect decides the default, and NOTIFY runs through it. Without it (a caller that
   * only ever uses RabbitMQ), NOTIFY is not available.
   */
  store?: Pick<Store, "displayName" | "notifications">;
  /** Where a worker LISTENs for NOTIFY wake-ups; default: the store's database URL. */
  listenUrl?: string;
  /** Longest pause between reconnect attempts (a short-lived CLI command waits less). */
  maxReconnectDelayMs?: number;
  /**
   * Without a broker: deliver wake-ups to workers of this process that use the same database (SQLite, the embedded
   * default). The database's identity, or null when it is not known yet (the app's client learns it at first use).
   */
  inProcess?: string | null;
}

/** Throws TaskQueueConfigError for a bad broker URL, prefix or wakeups value. openTransport() checks the same, and more. */
export function checkTransportOptions(options: Omit<TransportOptions, "logger" | "store">): void {
  topology(options.amqpPrefix, options.quorumQueues ?? false);
  const { wakeups } = options;
  if (wakeups !== undefined && !CHOICES.includes(wakeups)) {
    throw new TaskQueueConfigError("wakeups", `${JSON.stringify(wakeups)} is not a wake-up transport; use "rabbitmq", "notify" or "polling" (or leave it out).`);
  }
  if (wakeups === "notify") notifyChannel(options.amqpPrefix);
  if (hasAmqpUrl(options)) {
    const problem = amqpUrlProblem(options.amqpUrl!);
    if (problem) throw new TaskQueueConfigError("amqpUrl", `${problem}.`);
  } else if (wakeups === "rabbitmq") {
    throw new TaskQueueConfigError("wakeups", `"rabbitmq" needs amqpUrl (e.g. amqp://guest:guest@127.0.0.1:5672); set it, or leave wakeups out.`);
  }
}

/**
 * The transport the options describe. Default: RabbitMQ when amqpUrl is set; else NOTIFY where the database has it
 * (PostgreSQL); else in-process delivery when asked for (SQLite); else polling. Throws TaskQueueConfigError for a bad
 * URL, prefix or choice (NOTIFY on a database without it), before anything connects.
 */
export function openTransport(options: TransportOptions): WakeupTransport {
  checkTransportOptions(options);
  const { store } = options;
  const choice = chosenWakeups(options);
  if (choice === "rabbitmq") {
    return new RabbitMqTransport({
      url: options.amqpUrl!,
      topology: topology(options.amqpPrefix, options.quorumQueues ?? false),
      logger: options.logger,
      maxReconnectDelayMs: options.maxReconnectDelayMs,
    });
  }
  if (choice === "notify") {
    if (!store?.notifications) {
      throw new TaskQueueConfigError(
        "wakeups",
        `"notify" needs PostgreSQL's LISTEN/NOTIFY, which ${store?.displayName ?? "this database"} does not have. ` +
          `Use wakeups: "polling" (or leave it out), or set amqpUrl for RabbitMQ wake-ups.`,
      );
    }
    return new NotifyTransport({
      notifications: store.notifications,
      channel: notifyChannel(options.amqpPrefix),
      logger: options.logger,
      listenUrl: options.listenUrl === "" ? undefined : options.listenUrl,
      maxReconnectDelayMs: options.maxReconnectDelayMs,
    });
  }
  if (choice === undefined && options.inProcess !== undefined) return new InProcessTransport(options.inProcess ?? undefined);
  return new PollingTransport();
}

/** The transport the options pick (undefined: none chosen, in-process where the dialect has it, else polling). */
export function chosenWakeups(options: Pick<TransportOptions, "wakeups" | "amqpUrl" | "store">): WakeupsChoice | undefined {
  return options.wakeups ?? (hasAmqpUrl(options) ? "rabbitmq" : options.store?.notifications ? "notify" : undefined);
}

function hasAmqpUrl(options: { amqpUrl?: string }): boolean {
  return options.amqpUrl !== undefined && options.amqpUrl !== "";
}
