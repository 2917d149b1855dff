// The `task-runner` dispatcher: routes a command to its module, prints failures as one line (stack with --verbose),
// and returns the exit code. main.ts is the bin around it.

import { packageVersion } from "../package-files.js";
import { initCommand } from "./init-command.js";
import { migrateCommand } from "./migrate-command.js";
import { cancelCommand } from "./cancel-command.js";
import { pauseCommand, resumeCommand } from "./pause-command.js";
import { limitCommand } from "./limit-command.js";
import type { CliIo } from "./command-context.js";
import { CliError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from "./exit-codes.js";
import { retryCommand } from "./retry-command.js";
import { runCommand } from "./run-command.js";
import { runNowCommand } from "./run-now-command.js";
import { showCommand } from "./show-command.js";
import { statusCommand } from "./status-command.js";

type Command = { summary: string; run: (argv: string[], io: CliIo) => Promise<number> };

/** Every command, in the order `task-runner --help` lists them. */
const COMMANDS: Record<string, Command> = {
  start: { summary: "run a worker and a cleaner in one process", run: (argv, io) => runCommand("start", argv, io) },
  worker: { summary: "run task handlers", run: (argv, io) => runCommand("worker", argv, io) },
  cleaner: { summary: "wake delayed and forgotten tasks, recover expired leases, prune", run: (argv, io) => runCommand("cleaner", argv, io) },
  status: { summary: "task counts by queue, name and status; oldest due task; cleaner leader", run: statusCommand },
  show: { summary: "one task: status, who finished it, current error and error history", run: showCommand },
  retry: { summary: "retry a dead or cancelled task (or every dead task with --dead)", run: retryCommand },
  cancel: { summary: "cancel a pending task", run: cancelCommand },
  run: { summary: "make a delayed pending task due now", run: runNowCommand },
  pause: { summary: "pause a queue: no worker claims its tasks until resume", run: pauseCommand },
  resume: { summary: "resume a paused queue and wake its due tasks", run: resumeCommand },
  limit: { summary: "show or set a queue's limits (concurrency, rate of starts) for every worker", run: limitCommand },
  init: { summary: "add the task model and its migration to your Prisma schema", run: initCommand },
  migrate: { summary: "apply the pending Prisma migrations and record them as prisma migrate deploy does", run: migrateCommand },
  // Imported when run: the dashboard loads hono and @hono/node-server, which only apps that serve it install.
  dashboard: {
    summary: "serve the web dashboard (overview, tasks, retry/cancel/run now)",
    run: async (argv, io) => (await import("../dashboard/command.js")).dashboardCommand(argv, io),
  },
};

function mainHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const list = Object.entries(COMMANDS)
    .map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`)
    .join("\n");
  return `Usage: task-runner <command> [options]
       task-runner --version      print the version (also -v)

Commands:
${list}

Run \`task-runner <command> --help\` for a command's options. Every command but init reads ./task-runner.config.ts
(export default defineConfig({ tasks, ... }); optional for status, retry, cancel, run, pause, resume, limit, dashboard and migrate) and
takes the same common flags. Precedence: --database-url/--amqp-url, then DATABASE_URL/AMQP_URL, then the file.
`;
}

/** Runs `task-runner <argv>` and returns its exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const verbose = argv.includes("--verbose") || argv.includes("-v");
  const [name, ...rest] = argv;
  if (name === "--version" || name === "-v") {
    io.out(`${packageVersion()}\n`);
    return EXIT_OK;
  }
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    const topic = name === "help" ? rest[0] : undefined;
    if (topic && Object.hasOwn(COMMANDS, topic)) return COMMANDS[topic]!.run(["--help"], io);
    (name === undefined ? io.err : io.out)(mainHelp());
    return name === undefined ? EXIT_USAGE : EXIT_OK;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    io.err(`task-runner: unknown command ${JSON.stringify(name)}.\n\n${mainHelp()}`);
    return EXIT_USAGE;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    const exitCode = error instanceof CliError ? error.exitCode : isConfigError(error) ? EXIT_USAGE : EXIT_FAILURE;
    io.err(`task-runner ${name}: ${(error as Error)?.message ?? String(error)}\n`);
    if (verbose) io.err(`${stackOf(error)}\n`);
    return exitCode;
  }
}

function isConfigError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "TASK_QUEUE_CONFIG_INVALID" || code === "TASK_DEFINITION_INVALID";
}

function stackOf(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  while (current instanceof Error && parts.length < 5) {
    parts.push(current.stack ?? current.message);
    current = current.cause;
  }
  return parts.join("\nCaused by: ");
}
