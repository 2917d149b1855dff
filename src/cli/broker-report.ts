// The broker part of `task-runner status`: connects once with the command's settings, reads the broker's state
// (connected, refused with the fix, unreachable, none) and, when connected, the consumers and waiting wake-ups per queue.

import { silentLogger } from "../logger.js";
import type { Store } from "../store/store.js";
import { openTransport } from "../wakeups/open-transport.js";
import type { CommandConfig } from "./command-context.js";

/** How long status waits for the broker to answer. */
const CONNECT_TIMEOUT_MS = 3000;

/** The broker as `task-runner status --json` prints it. */
export interface BrokerReport {
  transport: string;
  state: "connected" | "connecting" | "unreachable" | "refused" | "none";
  url: string | null;
  error: string | null;
  fix: string | null;
  /**
   * Per task queue: listeners (workers consuming its wake-ups) and wake-ups waiting; `declared: false` when the broker
   * has no such queue yet (no worker or publish declared it). Empty unless connected.
   */
  queues: Array<{ queue: string; declared: true; consumers: number; ready: number } | { queue: string; declared: false }>;
}

/** Connects to the config's broker (if any), reports its state and the counts of `queues`, and closes again. */
export async function brokerReport(config: CommandConfig, store: Store, queues: readonly string[]): Promise<BrokerReport> {
  // Silent: the state and its fix are in the report; a log line on stderr would say it twice.
  const transport = openTransport({ ...config, store, logger: silentLogger, maxReconnectDelayMs: 1000 });
  try {
    if (transport.publishes) await transport.settled(CONNECT_TIMEOUT_MS);
    const broker = transport.broker;
    const counts =
      broker.state === "connected"
        ? await Promise.all(
            queues.map(async (queue) => {
              const state = await transport.queueState(queue);
              return state ? { queue, declared: true as const, ...state } : { queue, declared: false as const };
            }),
          )
        : [];
    return { transport: broker.transport, state: broker.state, url: broker.url ?? null, error: broker.error ?? null, fix: broker.fix ?? null, queues: counts };
  } finally {
    await transport.close();
  }
}

/** The report as the lines `task-runner status` prints. */
/** What carries the wake-ups when no broker is configured, by transport. */
const NO_BROKER: Record<string, string> = {
  notify: "wake-ups go through PostgreSQL NOTIFY (how many workers listen cannot be counted).",
  "in-process": "a worker in the app's own process is woken directly; other workers poll the database for due tasks.",
  polling: "workers poll the database for due tasks.",
};

export function renderBroker(report: BrokerReport): string[] {
  switch (report.state) {
    case "none":
      return [`Broker: none configured (no --amqp-url, AMQP_URL or amqpUrl): ${NO_BROKER[report.transport] ?? NO_BROKER.polling}`];
    case "refused":
      return [`Broker: refused. ${report.fix}.`, `  (${report.error})`, "  Tasks still run: workers poll the database and the cleaner publishes due tasks, later."];
    case "unreachable":
    case "connecting":
      return [
        `Broker: unreachable at ${report.url}: ${report.fix ?? report.error ?? `no answer within ${CONNECT_TIMEOUT_MS / 1000} s`}.`,
        "  Tasks still run: workers poll the database until it is back.",
      ];
    case "connected": {
      const lines = [`Broker: connected (${report.url}).`];
      for (const queue of report.queues) {
        lines.push(
          queue.declared
            ? `  ${queue.queue}: ${queue.consumers} consumer${queue.consumers === 1 ? "" : "s"}, ${queue.ready} wake-up${queue.ready === 1 ? "" : "s"} waiting` +
                (queue.consumers === 0 ? " (no worker listens: start one with task-runner worker)" : "")
            : `  ${queue.queue}: no queue on the broker yet (no worker has started for it and nothing was published to it)`,
        );
      }
      return lines;
    }
  }
}
