// `task-runner dashboard`: the common flags and config like every command, starts the dashboard server, and runs
// until SIGINT/SIGTERM (or io.signal aborts). Exit codes: 0 after a clean stop, 1 when it cannot start, 2 for usage.

import { COMMON_HELP, commandConfig, commandLogger, parseCommand, type CliIo } from "../cli/command-context.js";
import { CliError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from "../cli/exit-codes.js";
import { urlRefusal } from "../cli/database-errors.js";
import { TaskQueueConfigError } from "../errors.js";
import { startDashboardServer } from "./server.js";

const DASHBOARD_HELP = `Usage: task-runner dashboard [options]

Serves the web dashboard: queue overview, task list and detail, retry/cancel/run-now actions, and /metrics for
Prometheus (the database-wide gauges). Reads the config file when there is one (not required: --database-url or
DATABASE_URL is enough).

Options:
      --port <n>           TCP port (default 4000; 0 picks a free one)
      --host <address>     address to bind (default 127.0.0.1). Any other address requires a token.
      --base-path <path>   URL path to serve under (default /)
      --read-only          hide and refuse every action

Environment:
  TASK_RUNNER_DASHBOARD_TOKEN   token for requests from other machines (Authorization: Bearer, or ?token= once);
                                an environment variable only, so that it never shows in the process list

${COMMON_HELP}`;

export async function dashboardCommand(argv: string[], io: CliIo & { signal?: AbortSignal }): Promise<number> {
  const { values, positionals } = parseCommand("dashboard", argv, {
    port: { type: "string" },
    host: { type: "string" },
    "base-path": { type: "string" },
    "read-only": { type: "boolean" },
  });
  if (values.help) {
    io.out(DASHBOARD_HELP);
    return EXIT_OK;
  }
  if (positionals.length > 0) throw new CliError(`unexpected argument ${JSON.stringify(positionals[0])}. Run \`task-runner dashboard --help\`.`, EXIT_USAGE);
  const port = values.port === undefined ? 4000 : Number(values.port);
  if (!/^\d+$/.test(values.port ?? "4000") || port > 65535) {
    throw new CliError(`--port ${JSON.stringify(values.port)} is not a TCP port; use 0-65535.`, EXIT_USAGE);
  }
  const config = await commandConfig(values, io, { database: true });
  const logger = commandLogger(values, config, io);
  let server;
  try {
    server = await startDashboardServer({
      databaseUrl: config.databaseUrl,
      amqpUrl: config.amqpUrl || undefined,
      token: io.env.TASK_RUNNER_DASHBOARD_TOKEN || undefined,
      port,
      host: values.host,
      basePath: values["base-path"],
      readOnly: values["read-only"] === true,
      table: config.table,
      schema: config.schema,
      amqpPrefix: config.amqpPrefix,
      quorumQueues: config.quorumQueues,
      wakeups: config.wakeups,
      cleanerLockKey: config.cleaner?.lockKey,
      logger,
    });
  } catch (error) {
    const refused = urlRefusal(error, config.sources.databaseUrl);
    if (refused instanceof CliError) throw refused;
    throw new CliError((error as Error).message, error instanceof TaskQueueConfigError ? EXIT_USAGE : EXIT_FAILURE, { cause: error });
  }
  try {
    await server.dashboard.check();
  } catch (error) {
    await server.close();
    throw new CliError((error as Error).message, EXIT_FAILURE, { cause: error });
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
  return EXIT_OK;
}
