// What a worker says, in its "worker started" line, about how tasks reach it: the transport that wakes it, or that it
// polls (and how often), so the log never names a transport that is not what actually brings it work.

import type { WakeupTransport } from "../wakeups/transport.js";

/** How tasks reach a worker on `transport` (`consuming`: its listener receives wake-ups now). */
export function wakeupSummary(transport: Pick<WakeupTransport, "name">, consuming: boolean, pollIntervalMs: number): string {
  const polls = `polls every ${pollIntervalMs} ms`;
  switch (transport.name) {
    case "rabbitmq":
      return consuming ? "woken by RabbitMQ" : `${polls} until RabbitMQ answers, then woken by it`;
    case "notify":
      return consuming ? "woken by PostgreSQL NOTIFY" : `${polls} until its LISTEN connection is up, then woken by NOTIFY`;
    case "in-process":
      return `${polls}; woken at once for tasks enqueued on this host (in this process directly, from other processes through a local socket)`;
    default:
      return polls;
  }
}
