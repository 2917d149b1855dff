// What every `task-runner` command shares: its I/O, the common flags (--config, --database-url, --amqp-url,
// --log-format, --log-level, --verbose, --help), loading the config with its overrides, and the logger choice.

import { parseArgs, type ParseArgsConfig } from "node:util";
import { taskTable, type TaskTable } from "../store/task-table.js";
import type { Logger } from "../logger.js";
import { ConfigFileError, loadConfig, type LoadedConfig } from "../runner/load-config.js";
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

export const COMMON_OPTIONS = {
  config: { type: "string", short: "c" },
  "database-url": { type: "string" },
  "amqp-url": { type: "string" },
  "log-format": { type: "string" },
  "log-level": { type: "string" },
  verbose: { type: "boolean", short: "v" },
  help: { type: "boolean", short: "h" },
} as const satisfies NonNullable<ParseArgsConfig["options"]>;

export const COMMON_HELP = `Common options:
  -c, --config <path>      config file (default: ./task-runner.config.ts, then .mts, .js, .mjs)
      --database-url <url> PostgreSQL URL; overrides DATABASE_URL, which overrides the config
      --amqp-url <url>     RabbitMQ URL; overrides AMQP_URL, which overrides the config
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
    return { values: parsed.values as CommonValues & ValuesOf<Options>, positionals: parsed.positionals };
  } catch (error) {
    throw new CliError(`${(error as Error).message}. Run \`task-runner ${command} --help\` for its options.`, EXIT_USAGE);
  }
}

/** Loads the config with the flags' overrides. A config problem is a usage error (exit 2) naming the file. */
export async function commandConfig(values: CommonValues, io: CliIo, needs: { database: boolean }): Promise<LoadedConfig> {
  let config: LoadedConfig;
  try {
    config = await loadConfig(values.config, {
      cwd: io.cwd,
      env: io.env,
      overrides: { databaseUrl: values["database-url"], amqpUrl: values["amqp-url"] },
    });
  } catch (error) {
    if (error instanceof ConfigFileError) throw new CliError(error.message, EXIT_USAGE, { cause: error.cause ?? error });
    throw error;
  }
  if (needs.database && !config.databaseUrl) {
    throw new CliError(
      `no database URL: set DATABASE_URL, pass --database-url, or set databaseUrl in ${config.file}.`,
      EXIT_USAGE,
    );
  }
  return config;
}

/** The config's table, as a usage error when its name is not usable. */
export function commandTable(config: LoadedConfig): TaskTable {
  return taskTable(config.table, config.schema);
}

/**
 * The logger: --log-format/--log-level when given, else the config's logger, else auto by TTY at `defaultLevel`
 * (operator commands pass "warn" so that their output is their answer, not connection chatter).
 */
export function commandLogger(values: CommonValues, config: LoadedConfig | undefined, io: CliIo, defaultLevel: LogLevel = "info"): Logger {
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
