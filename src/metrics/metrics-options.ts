// The options that serve a process's Prometheus metrics, shared by createWorker(), createCleaner() and the runner's
// config, and their checks. Each throws TaskQueueConfigError naming the option, the bad value and the fix.

import { TaskQueueConfigError } from "../errors.js";

export interface MetricsOptions {
  /**
   * Serve this process's Prometheus metrics at `http://<metricsHost>:<metricsPort>/metrics` while it runs (started by
   * start(), closed by stop()). Default: none, no server. The metrics are those of the whole process: every worker and
   * cleaner in it (docs/observability.md, "Prometheus"). 0 picks a free port (the start's log line names it). A port
   * in use fails start() with TaskQueueConfigError; give each process of a host its own port.
   */
  metricsPort?: number;
  /**
   * The address the metrics server binds. Default "0.0.0.0" (every IPv4 interface), so that a Prometheus on another
   * host or pod can scrape it, as exporters do. Trade-off: whoever reaches the port reads the queues' and tasks' names
   * and counts (never a payload, and nothing can be changed through it); "127.0.0.1" keeps it to this machine.
   */
  metricsHost?: string;
}

/** Where to serve, after the checks; undefined without metricsPort. */
export interface MetricsAddress {
  port: number;
  host: string;
}

export const DEFAULT_METRICS_HOST = "0.0.0.0";

export function resolveMetricsOptions(options: MetricsOptions): MetricsAddress | undefined {
  const { metricsPort: port, metricsHost: host } = options;
  if (host !== undefined && (typeof host !== "string" || host.trim() === "")) {
    throw new TaskQueueConfigError("metricsHost", `must be an address such as "0.0.0.0" or "127.0.0.1", got ${JSON.stringify(host)}.`);
  }
  if (port === undefined) {
    if (host !== undefined) throw new TaskQueueConfigError("metricsHost", "is set without metricsPort: add metricsPort (e.g. 9464) to serve the metrics.");
    return undefined;
  }
  if (typeof port !== "number" || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new TaskQueueConfigError("metricsPort", `${JSON.stringify(port)} is not a TCP port; use 0-65535 (e.g. 9464; 0 picks a free one).`);
  }
  return { port, host: host ?? DEFAULT_METRICS_HOST };
}
