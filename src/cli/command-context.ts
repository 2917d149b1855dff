// What every `task-runner` command shares: its I/O, the common flags (--config, --database-url, --amqp-url, --table,
// --schema, --amqp-prefix, --wakeups, --log-*, --verbose, --help), the config with its overrides checked, and the logger choice.

import { parseArgs, type ParseArgsConfig } from "node:util";
import { amqpUrlProblem } from "../amqp-url.js";
import type { TaskRegistry } from "../define-tasks.js";
import { dialectForUrl } from "../dialects/index.js";
import { TaskQueueConfigError } from "../errors.js";
import { taskTable, type TaskTable } from "../store/task-table.js";
import type { Logger } from "../logger.js";
import { checkDirectUrl } from "../direct-url.js";
import { applyOverrides, ConfigFileError, findConfigFile, loadConfig, OVERRIDABLE, type LoadedConfig, type Overridable } from "../runner/load-config.js";
import { topology } from "../wakeups/rabbitmq/topology.js";
import { checkTransportOptions } from "../wakeups/open-transport.js";
import type { WakeupsChoice } from "../naming-options.js";
import { chooseLogger, type LogFormat, type LogLevel } from "../runner/logger-choice.js";
import { CliError, EXIT_USAGE } from "./exit-codes.js";

/** Where a command reads and writes. main.ts passes the process's; nothing else is global. */
export interface CliIo {
  cwd: string;
  out: (text: string) => void;
  err: (text: string) => void;
  env: NodeJS.ProcessEnv;
  /** Whether stderr is a terminal: decides the log format when --log-format is auto. */
  stderrIsTTY: boolean;
}

const COMMON_OPTIONS = {
  config: { type: "string", short: "c" },
  "database-url": { type: "string" },
  "direct-url": { type: "string" },
  "amqp-url": { type: "string" },
  table: { type: "string" },
  schema: { type: "string" },
  "amqp-prefix": { type: "string" },
  wakeups: { type: "string" },
  "log-format": { type: "string" },
  "log-level": { type: "string" },
  verbose: { type: "boolean", short: "v" },
  help: { type: "boolean", short: "h" },
} as const satisfies NonNullable<ParseArgsConfig["options"]>;

export const COMMON_HELP = `Common options (every command but init):
  -c, --config <path>      config file (default: ./task-runner.config.ts, then .mts, .js, .mjs; optional for status,
                           retry, cancel, run, dashboard and migrate, required for worker, cleaner and start)
      --database-url <url> database URL; overrides DATABASE_URL, which overrides databaseUrl in the config
      --direct-url <url>   PostgreSQL behind PgBouncer in transaction mode (pgbouncer=true): a direct URL for the
                           leader lock, LISTEN and migrate; overrides DIRECT_URL, which overrides directUrl
      --amqp-url <url>     RabbitMQ URL (a cluster: its nodes separated by commas); overrides AMQP_URL, which
                           overrides amqpUrl in the config
      --table <name>       task table (default tasks); overrides table in the config
      --schema <name>      PostgreSQL schema of the table; overrides schema in the config
      --amqp-prefix <p>    RabbitMQ name prefix and NOTIFY channel prefix (default task_queue); overrides amqpPrefix
                           in the config
      --wakeups <w>        wake-up transport: rabbitmq, notify or polling (default: rabbitmq with an AMQP URL, else
                           notify on PostgreSQL); overrides wakeups in the config
      --log-format <f>     auto (default: human-readable on a terminal, JSON lines otherwise), pretty or json
      --log-level <l>      debug, info (default), warn or error
  -v, --verbose            print stack traces with errors
  -h, --help               show this help

Exit codes: 0 ok, 1 runtime failure (e.g. database unreachable), 2 usage or config error, 3 task not found or not in
a state the action allows.
`;

type OptionSpec = { type: "string" | "boolean"; multiple?: boolean; short?: string };
type ValuesOf<Options extends Record<string, OptionSpec>> = {
  [Key in keyof Options]?: Options[Key] extends { type: "boolean" } ? boolean : Options[Key] extends { multiple: true } ? string[] : string;
};
type CommonValues = ValuesOf<typeof COMMON_OPTIONS>;

/** Parses `argv` with the common options plus `options`; a bad flag is a usage error (exit 2) naming the command. */
export function parseCommand<Options extends Record<string, OptionSpec>>(
  command: string,
  argv: string[],
  options: Options,
): { values: CommonValues & ValuesOf<Options>; positionals: string[] } {
  try {
    const parsed = parseArgs({ args: argv, options: { ...COMMON_OPTIONS, ...options }, allowPositionals: true, strict: true });
    return { values: parsed.values, positionals: parsed.positionals };
  } catch (error) {
    throw new CliError(`${(error as Error).message}. Run \`task-runner ${command} --help\` for its options.`, EXIT_USAGE);
  }
}

/**
 * A command's config: the file's when there is one, with the flags and the environment applied. Without a file (and
 * without --config) it holds only what the flags and the environment give; `file` and `tasks` are then undefined.
 */
export type CommandConfig = Omit<LoadedConfig, "file" | "tasks"> & { file?: string; tasks?: TaskRegistry };

/**
 * Loads the config with the flags' overrides and checks the URLs, table, schema and prefix. A problem is a usage error
 * (exit 2) that names where the bad value came from: the flag, the environment variable or the file. `needs.file`:
 * the command runs tasks (worker, cleaner, start), so the file is required.
 */
export async function commandConfig(values: CommonValues, io: CliIo, needs: { database: boolean; file: true }): Promise<LoadedConfig>;
export async function commandConfig(values: CommonValues, io: CliIo, needs: { database: boolean; file?: false }): Promise<CommandConfig>;
export async function commandConfig(values: CommonValues, io: CliIo, needs: { database: boolean; file?: boolean }): Promise<CommandConfig> {
  const overrides = {
    databaseUrl: values["database-url"],
    directUrl: values["direct-url"],
    amqpUrl: values["amqp-url"],
    table: values.table,
    schema: values.schema,
    amqpPrefix: values["amqp-prefix"],
    wakeups: values.wakeups,
  };
  let config: CommandConfig;
  if (!needs.file && values.config === undefined && findConfigFile(io.cwd) === undefined) {
    const { values: given, sources } = applyOverrides({}, { cwd: io.cwd, env: io.env, overrides });
    config = { ...given, wakeups: given.wakeups as WakeupsChoice | undefined, sources };
  } else {
    try {
      config = await loadConfig(values.config, { cwd: io.cwd, env: io.env, overrides });
    } catch (error) {
      if (error instanceof ConfigFileError) throw new CliError(error.message, EXIT_USAGE, { cause: error.cause ?? error });
      throw error;
    }
  }
  checkValues(config);
  if (needs.database && !config.databaseUrl) {
    throw new CliError(
      `no database URL: set DATABASE_URL, pass --database-url, or set databaseUrl in ` + (config.file ?? `a task-runner.config.ts (none found in ${io.cwd})`) + ".",
      EXIT_USAGE,
    );
  }
  return config;
}

/** Checks every overridable value the way the parts using it will, naming the value's source in the error. */
function checkValues(config: CommandConfig): void {
  const checks: Record<Overridable, () => void> = {
    databaseUrl: () => config.databaseUrl !== undefined && dialectForUrl(config.databaseUrl),
    directUrl: () => checkDirectUrl(config.directUrl, config.databaseUrl),
    amqpUrl: () => {
      const problem = config.amqpUrl ? amqpUrlProblem(config.amqpUrl) : undefined;
      if (problem) throw new TaskQueueConfigError("amqpUrl", `${problem}.`);
    },
    table: () => taskTable(config.table, config.schema),
    schema: () => taskTable(config.table, config.schema),
    amqpPrefix: () => topology(config.amqpPrefix),
    wakeups: () => checkTransportOptions({ amqpPrefix: config.amqpPrefix, amqpUrl: config.amqpUrl, wakeups: config.wakeups }),
  };
  for (const key of OVERRIDABLE) {
    if (config[key] === undefined) continue;
    try {
      checks[key]();
    } catch (error) {
      if (!(error instanceof TaskQueueConfigError)) throw error;
      const culprit = (OVERRIDABLE as readonly string[]).includes(error.option) ? (error.option as Overridable) : key;
      const source = config.sources[culprit] ?? config.sources[key] ?? key;
      throw new CliError(`${source}: ${error.message.replace(/^Invalid option "[^"]*": /, "")}`, EXIT_USAGE, { cause: error });
    }
  }
}

/** The config's table, as a usage error when its name is not usable. */
export function commandTable(config: CommandConfig): TaskTable {
  return taskTable(config.table, config.schema);
}

/**
 * The logger: --log-format/--log-level when given, else the config's logger, else auto by TTY at `defaultLevel`
 * (operator commands pass "warn" so that their output is their answer, not connection chatter).
 */
export function commandLogger(values: CommonValues, config: CommandConfig | undefined, io: CliIo, defaultLevel: LogLevel = "info"): Logger {
  const format = values["log-format"] ?? "auto";
  const level = values["log-level"] ?? defaultLevel;
  if (!["auto", "pretty", "json"].includes(format)) {
    throw new CliError(`--log-format must be auto, pretty or json, got ${JSON.stringify(format)}.`, EXIT_USAGE);
  }
  if (!["debug", "info", "warn", "error"].includes(level)) {
    throw new CliError(`--log-level must be debug, info, warn or error, got ${JSON.stringify(level)}.`, EXIT_USAGE);
  }
  if (config?.logger && values["log-format"] === undefined && values["log-level"] === undefined) return config.logger;
  return chooseLogger({ format: format as LogFormat, level: level as LogLevel, isTTY: io.stderrIsTTY, write: io.err });
}
