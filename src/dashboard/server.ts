// startDashboardServer(): the dashboard on its own node:http server, loopback by default. Binding any other address
// without a token or an authorize callback is refused before anything listens.

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { TaskQueueConfigError } from "../errors.js";
import { isLoopbackAddress } from "./access.js";
import { createDashboard, type Dashboard } from "./create-dashboard.js";
import type { DashboardOptions } from "./dashboard-options.js";

export interface DashboardServerOptions extends DashboardOptions {
  /** TCP port. Default 4000; 0 picks a free one (see `url`). */
  port?: number;
  /**
   * Address to bind. Default "127.0.0.1" (this machine only). Any other address (e.g. "0.0.0.0") needs `token` or
   * `authorize`, because the dashboard can retry and cancel tasks and shows every payload.
   */
  host?: string;
}

export interface DashboardServer {
  /** The address it listens on, e.g. http://127.0.0.1:4000/ (with the base path). */
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  readonly dashboard: Dashboard;
  /** Stops listening, ends open connections and closes what the dashboard opened. */
  close(): Promise<void>;
}

/** True for the names and addresses that only this machine can reach. */
function isLoopbackBind(host: string): boolean {
  return host === "localhost" || isLoopbackAddress(host);
}

export async function startDashboardServer(options: DashboardServerOptions = {}): Promise<DashboardServer> {
  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? 4000;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new TaskQueueConfigError("port", `${String(port)} is not a TCP port; use 0-65535 (0 picks a free one).`);
  }
  if (!isLoopbackBind(host) && options.token === undefined && options.authorize === undefined) {
    throw new TaskQueueConfigError(
      "host",
      `refusing to bind ${JSON.stringify(host)} without a token: anyone who reaches it could read payloads and retry or cancel ` +
        `tasks. Set TASK_RUNNER_DASHBOARD_TOKEN (or the token option), pass authorize, or bind 127.0.0.1.`,
    );
  }
  const dashboard = createDashboard(options);
  const server = createServer(dashboard);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    await dashboard.close();
    throw error;
  }
  const address = server.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${address.port}${dashboard.basePath}/`,
    port: address.port,
    server,
    dashboard,
    close: () =>
      (closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await dashboard.close();
      })()),
  };
}
