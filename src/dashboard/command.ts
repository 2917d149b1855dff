// `task-runner dashboard`: parses flags and environment, starts the dashboard server, and runs until SIGINT/SIGTERM
// (or io.signal aborts). Exit codes: 0 after a clean stop, 1 when it cannot start, 2 for a usage or config error.

import { parseArgs } from "node:util";
import { TaskQueueConfigError } from "../errors.js";
import { jsonLogger, type Logger } from "../logger.js";
import type { WakeupsChoice } from "../naming-options.js";
import { startDashboardServer } from "./server.js";

export interface DashboardCommandIo {
  out(text: string): void;
  err(text: string): void;
  /** Environment to read DATABASE_URL, AMQP_URL and TASK_RUNNER_DASHBOARD_TOKEN from. Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Stops the server when aborted (besides SIGINT/SIGTERM). */
  signal?: AbortSignal;
  /** Where requests' actions and warnings go. Default JSON lines on stderr. */
  logger?: Logger;
}

export const DASHBOARD_HELP = `Usage: task-runner dashboard [options]

Serves the web dashboard: queue overview, task list and detail, retry/cancel/run-now actions.

Options:
  --port <n>           TCP port (default 4000; 0 picks a free one)
  --host <address>     address to bind (default 127.0.0.1). Any other address requires a token.
  --base-path <path>   URL path to serve under (default /)
  --read-only          hide and refuse every action
  --table <name>       task table (default tasks)
  --schema <name>      PostgreSQL schema of the table
  --amqp-prefix <p>    RabbitMQ name prefix (default task_queue); also names the NOTIFY channel
  --wakeups <w>        rabbitmq, notify or polling (default: rabbitmq with AMQP_URL, else notify on PostgreSQL)
  -h, --help           show this help

Environment:
  DATABASE_URL                  PostgreSQL URL (required)
  AMQP_URL                      RabbitMQ URL: retried tasks get a wake-up at once (optional)
  TASK_RUNNER_DASHBOARD_TOKEN   token for requests from other machines (Authorization: Bearer, or ?token= once)
`;

export async function dashboardCommand(argv: string[], io: DashboardCommandIo): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: "string" },
        host: { type: "string" },
        "base-path": { type: "string" },
        "read-only": { type: "boolean" },
        table: { type: "string" },
        schema: { type: "string" },
        "amqp-prefix": { type: "string" },
        wakeups: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: false,
      strict: true,
    }));
  } catch (error) {
    io.err(`task-runner dashboard: ${(error as Error).message}\n\n${DASHBOARD_HELP}`);
    return 2;
  }
  if (values.help) {
    io.out(DASHBOARD_HELP);
    return 0;
  }
  const env = io.env ?? process.env;
  const databaseUrl = env.DATABASE_URL;
  if (!databaseUrl) {
    io.err("task-runner dashboard: DATABASE_URL is not set. Set it to your PostgreSQL URL, e.g. postgresql://user:pass@127.0.0.1:5432/app.\n");
    return 2;
  }
  const port = values.port === undefined ? 4000 : Number(values.port);
  if (!/^\d+$/.test(values.port ?? "4000") || port > 65535) {
    io.err(`task-runner dashboard: --port ${JSON.stringify(values.port)} is not a TCP port; use 0-65535.\n`);
    return 2;
  }
  let server;
  try {
    server = await startDashboardServer({
      databaseUrl,
      amqpUrl: env.AMQP_URL || undefined,
      token: env.TASK_RUNNER_DASHBOARD_TOKEN || undefined,
      port,
      host: values.host,
      basePath: values["base-path"],
      readOnly: values["read-only"] === true,
      table: values.table,
      schema: values.schema,
      amqpPrefix: values["amqp-prefix"],
      wakeups: values.wakeups as WakeupsChoice | undefined,
      logger: io.logger ?? jsonLogger(),
    });
  } catch (error) {
    const message = (error as Error).message;
    io.err(`task-runner dashboard: ${message}\n`);
    return error instanceof TaskQueueConfigError ? 2 : 1;
  }
  try {
    await server.dashboard.check();
  } catch (error) {
    await server.close();
    io.err(`task-runner dashboard: ${(error as Error).message}\n`);
    return 1;
  }
  io.out(`dashboard listening on ${server.url}${values["read-only"] ? " (read-only)" : ""}\n`);
  let stop = () => {};
  await new Promise<void>((resolve) => {
    stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    io.signal?.addEventListener("abort", stop, { once: true });
    if (io.signal?.aborted) stop();
  });
  process.off("SIGINT", stop);
  process.off("SIGTERM", stop);
  io.signal?.removeEventListener("abort", stop);
  await server.close();
  io.out("dashboard stopped\n");
  return 0;
}
