// `task-runner worker`, `task-runner cleaner` and `task-runner start` (both in one process): check the database,
// start the parts, run until SIGTERM/SIGINT, then stop gracefully (a second signal cuts the worker's grace period).

import { createCleaner, type Cleaner } from "../cleaner/create-cleaner.js";
import { errorMessage } from "../error-text.js";
import { MissingPackageError, TaskQueueError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { LoadedConfig } from "../runner/load-config.js";
import { createWorker, type Worker } from "../worker/create-worker.js";
import { COMMON_HELP, commandConfig, commandLogger, commandTable, parseCommand, type CliIo } from "./command-context.js";
import { checkDatabase } from "./database-session.js";
import { CliError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from "./exit-codes.js";
import { listenForSignals } from "./signals.js";

type Role = "worker" | "cleaner" | "start";

const WORKER_OPTIONS = `Worker options (override the config's worker: {...}):
      --concurrency <n>    handlers running at once (default 10)
      --queue <name>       serve this queue; repeat for several (default: the queues of the tasks with a handler)
`;

const METRICS_OPTIONS = `Metrics options (override the config's worker: {...} or cleaner: {...}):
      --metrics-port <n>   serve this process's Prometheus metrics at http://<host>:<n>/metrics (e.g. 9464)
      --metrics-host <a>   address the metrics server binds (default 0.0.0.0)
`;

const runHelp: Record<Role, string> = {
  worker: `Usage: task-runner worker [options]

Runs the handlers of the tasks in the config: consumes wake-ups from RabbitMQ (polling the database while it is
unreachable), claims tasks, records their outcomes. SIGTERM or SIGINT stops it gracefully: running tasks finish within
the grace period (worker.shutdownGraceMs, default 10 s); a second signal gives them back to pending at once.

${WORKER_OPTIONS}
${METRICS_OPTIONS}
${COMMON_HELP}`,
  cleaner: `Usage: task-runner cleaner [options]

Runs a cleaner: any number may run, one leads (PostgreSQL advisory lock). The leader wakes delayed, retried and
forgotten tasks, recovers tasks whose worker vanished (by each task's recovery policy), and prunes finished tasks
past retention. SIGTERM or SIGINT stops it after the sweep in progress.

${METRICS_OPTIONS}
${COMMON_HELP}`,
  start: `Usage: task-runner start [options]

Runs a worker and a cleaner in one process (see task-runner worker --help and task-runner cleaner --help). The
metrics server, when asked for, serves both: the worker's runs and the cleaner's recoveries.

${WORKER_OPTIONS}
${METRICS_OPTIONS}
${COMMON_HELP}`,
};

export async function runCommand(role: Role, argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommand(role, argv, {
    concurrency: { type: "string" },
    queue: { type: "string", multiple: true },
    "metrics-port": { type: "string" },
    "metrics-host": { type: "string" },
  });
  if (values.help) {
    io.out(runHelp[role]);
    return EXIT_OK;
  }
  if (positionals.length > 0) throw new CliError(`unexpected argument ${JSON.stringify(positionals[0])}. Run \`task-runner ${role} --help\`.`, EXIT_USAGE);
  if (role === "cleaner" && (values.concurrency !== undefined || values.queue !== undefined)) {
    throw new CliError("--concurrency and --queue are worker options; use them with `task-runner worker` or `start`.", EXIT_USAGE);
  }
  const concurrency = values.concurrency === undefined ? undefined : Number(values.concurrency);
  if (concurrency !== undefined && !(Number.isSafeInteger(concurrency) && concurrency > 0)) {
    throw new CliError(`--concurrency must be a positive integer, got ${JSON.stringify(values.concurrency)}.`, EXIT_USAGE);
  }
  const metricsPort = values["metrics-port"] === undefined ? undefined : Number(values["metrics-port"]);
  if (metricsPort !== undefined && !(/^\d+$/.test(values["metrics-port"]!) && metricsPort <= 65535)) {
    throw new CliError(`--metrics-port ${JSON.stringify(values["metrics-port"])} is not a TCP port; use 0-65535 (e.g. 9464).`, EXIT_USAGE);
  }
  const metrics = {
    ...(metricsPort !== undefined && { metricsPort }),
    ...(values["metrics-host"] !== undefined && { metricsHost: values["metrics-host"] }),
  };
  const config = await commandConfig(values, io, { database: true, file: true });
  const configPort = role === "cleaner" ? config.cleaner?.metricsPort : config.worker?.metricsPort;
  if (metrics.metricsHost !== undefined && metricsPort === undefined && configPort === undefined) {
    throw new CliError(
      `--metrics-host needs a port: add --metrics-port (e.g. 9464), or metricsPort in the config's ${role === "cleaner" ? "cleaner" : "worker"}: {...}.`,
      EXIT_USAGE,
    );
  }
  const table = commandTable(config);
  const logger = commandLogger(values, config, io);
  await checkDatabase(config.databaseUrl!, table, config.sources.databaseUrl);

  const prisma = await resolvePrisma(config);
  const parts = build(role, config, prisma, logger, { concurrency, queues: values.queue, metrics });
  // Signals are heard from before the start: one that comes while the parts start stops them once they have started.
  let starting: Promise<void> = Promise.resolve();
  const signals = listenForSignals({
    logger,
    first: async (signal) => {
      logger.info(`${signal} received: stopping gracefully (send it again to stop at once)`, {});
      await starting.catch(() => {});
      return stopParts(parts, prisma);
    },
    second: () => {
      logger.warn("second signal: giving running tasks back to pending now", {});
      void parts.worker?.stop();
    },
  });
  starting = (async () => {
    await parts.cleaner?.start();
    await parts.worker?.start();
  })();
  try {
    await starting;
  } catch (error) {
    signals.remove();
    await stopParts(parts, prisma);
    // A refused broker or database fails start for good: name where its URL came from (flag, environment or file).
    const thrownOption = (error as { option?: unknown }).option;
    const option = thrownOption === "amqpUrl" || thrownOption === "databaseUrl" ? thrownOption : undefined;
    const source = option ? config.sources[option] : undefined;
    const code = error instanceof TaskQueueError && error.code === "TASK_QUEUE_CONFIG_INVALID" ? EXIT_USAGE : EXIT_FAILURE;
    throw new CliError(`could not start: ${errorMessage(error)}${source ? ` (${option} came from ${source})` : ""}`, code, { cause: error });
  }
  await signals.done;
  return EXIT_OK;
}

function build(
  role: Role,
  config: LoadedConfig,
  prisma: unknown,
  logger: Logger,
  flags: { concurrency?: number; queues?: string[]; metrics: { metricsPort?: number; metricsHost?: string } },
): { worker?: Worker; cleaner?: Cleaner } {
  const shared = {
    tasks: config.tasks,
    databaseUrl: config.databaseUrl,
    directUrl: config.directUrl,
    amqpUrl: config.amqpUrl,
    prisma,
    table: config.table,
    schema: config.schema,
    amqpPrefix: config.amqpPrefix,
    quorumQueues: config.quorumQueues,
    wakeups: config.wakeups,
    logger,
  };
  try {
    const worker =
      role === "cleaner"
        ? undefined
        : createWorker({
            ...config.worker,
            ...(flags.concurrency !== undefined && { concurrency: flags.concurrency }),
            ...(flags.queues !== undefined && { queues: flags.queues }),
            ...flags.metrics,
            ...shared,
          });
    // With `start`, the worker's metrics server serves the cleaner's counters too: the flags go to the worker.
    const cleaner = role === "worker" ? undefined : createCleaner({ ...config.cleaner, ...(role === "cleaner" && flags.metrics), ...shared });
    return { worker, cleaner };
  } catch (error) {
    // An option of the config file that cannot work; a package that is not installed is no fault of the file.
    if (error instanceof TaskQueueError && !(error instanceof MissingPackageError)) {
      throw new CliError(`${config.file}: ${error.message}`, EXIT_USAGE, { cause: error });
    }
    throw error;
  }
}

/** Calls the config's prisma factory (or takes the client it holds). */
async function resolvePrisma(config: LoadedConfig): Promise<unknown> {
  if (typeof config.prisma !== "function") return config.prisma;
  try {
    return await (config.prisma as () => unknown)();
  } catch (error) {
    throw new CliError(`${config.file}: prisma() threw: ${(error as Error)?.message ?? String(error)}`, EXIT_USAGE, { cause: error });
  }
}

/** Stops the worker (draining) and the cleaner together, then closes the Prisma client the config gave. */
async function stopParts(parts: { worker?: Worker; cleaner?: Cleaner }, prisma: unknown): Promise<void> {
  await Promise.all([parts.worker?.stop(), parts.cleaner?.stop()]);
  const client = prisma as { $taskQueue?: { close?: () => Promise<void> }; $disconnect?: () => Promise<void> } | undefined;
  await client?.$taskQueue?.close?.().catch(() => {});
  await client?.$disconnect?.().catch(() => {});
}
