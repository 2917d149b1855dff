// The node:http server of a worker's or cleaner's /metrics: the process's task metrics in the exposition format. While
// one is open, the metrics listen to the telemetry events; with none open, no listener costs the runs anything.

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { TaskQueueConfigError } from "../errors.js";
import { addTelemetryListener } from "../telemetry/telemetry.js";
import { EXPOSITION_CONTENT_TYPE, formatExposition } from "./exposition.js";
import type { MetricsAddress } from "./metrics-options.js";
import { taskMetrics } from "./task-metrics.js";

let openServers = 0;
let removeListener: (() => void) | undefined;

function listen(): void {
  if (openServers++ === 0) removeListener = addTelemetryListener(taskMetrics().listener);
}

function unlisten(): void {
  if (--openServers === 0) {
    removeListener?.();
    removeListener = undefined;
  }
}

export class MetricsServer {
  private server: Server | undefined;
  private closing: Promise<void> | undefined;

  constructor(private readonly address: MetricsAddress) {}

  /** Listens; rejects with TaskQueueConfigError when the address cannot be bound (a port in use, say). */
  async open(): Promise<void> {
    const { port, host } = this.address;
    const server = createServer((req, res) => {
      const path = (req.url ?? "/").split("?")[0];
      if (path !== "/metrics") {
        res.writeHead(404, { "content-type": "text/plain" }).end("not found: the metrics are at /metrics\n");
        return;
      }
      if (req.method !== "GET" && req.method !== "HEAD") {
        res.writeHead(405, { allow: "GET, HEAD" }).end();
        return;
      }
      res.writeHead(200, { "content-type": EXPOSITION_CONTENT_TYPE, "cache-control": "no-store" });
      res.end(req.method === "HEAD" ? undefined : formatExposition(taskMetrics().families()));
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", (error: NodeJS.ErrnoException) => {
        reject(
          new TaskQueueConfigError(
            "metricsPort",
            `cannot serve the metrics on ${host}:${port} (${error.code ?? error.message}): ` +
              `${error.code === "EADDRINUSE" ? "another process listens there; give each process its own metricsPort" : "check metricsHost and metricsPort"}.`,
          ),
        );
      });
      server.listen(port, host, () => resolve());
    });
    this.server = server;
    listen();
  }

  /** Where it serves, e.g. http://0.0.0.0:9464/metrics (the port picked, with metricsPort 0), for the start's log line. */
  get url(): string {
    const port = (this.server?.address() as AddressInfo | null)?.port ?? this.address.port;
    return `http://${this.address.host}:${port}/metrics`;
  }

  /** Stops listening and ends open connections. Idempotent. */
  close(): Promise<void> {
    const { server } = this;
    if (!server) return Promise.resolve();
    this.closing ??= new Promise<void>((resolve) => {
      unlisten();
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return this.closing;
  }
}
