// Finds, imports and checks `task-runner.config.ts` (TypeScript, no build step, through tsx when installed), then
// applies the DATABASE_URL / AMQP_URL environment and flag overrides. Every problem names the file and the fix.

import { existsSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { WakeupsChoice } from "../naming-options.js";
import { checkTransportOptions } from "../wakeups/open-transport.js";
import { taskTable } from "../store/task-table.js";
import { defineTasks, type TaskRegistry } from "../define-tasks.js";
import { TaskQueueConfigError } from "../errors.js";
import { ConfigFileError } from "./config-file-error.js";
import { valueText } from "../value-text.js";
import type { RunnerConfig } from "./config.js";
import { registerTypeScriptHooks } from "./typescript-hooks.js";

/** The config file names looked for, in order, when no path is given. */
const CONFIG_FILE_NAMES = ["task-runner.config.ts", "task-runner.config.mts", "task-runner.config.js", "task-runner.config.mjs"];

export { ConfigFileError };

/** The settings a flag or the environment can override, in the order the CLI documents them. */
export const OVERRIDABLE = ["databaseUrl", "directUrl", "amqpUrl", "table", "schema", "amqpPrefix", "wakeups"] as const;
export type Overridable = (typeof OVERRIDABLE)[number];

/** The flag and the environment variable of each overridable setting (no variable: only the flag and the file). */
const OVERRIDE_NAMES: Record<Overridable, { flag: string; env?: string }> = {
  databaseUrl: { flag: "--database-url", env: "DATABASE_URL" },
  directUrl: { flag: "--direct-url", env: "DIRECT_URL" },
  amqpUrl: { flag: "--amqp-url", env: "AMQP_URL" },
  table: { flag: "--table" },
  schema: { flag: "--schema" },
  amqpPrefix: { flag: "--amqp-prefix" },
  wakeups: { flag: "--wakeups" },
};

/**
 * Where each overridable setting that has a value came from, for error messages: "--amqp-url", "the environment
 * variable AMQP_URL", or "amqpUrl in ./task-runner.config.ts".
 */
export type ValueSources = Partial<Record<Overridable, string>>;

/** A loaded, checked config with the overrides applied. */
export interface LoadedConfig extends RunnerConfig<TaskRegistry> {
  /** Absolute path of the file it came from. */
  file: string;
  /** Where databaseUrl, amqpUrl, table, schema and amqpPrefix came from. */
  sources: ValueSources;
}

interface LoadConfigOptions {
  /** Directory the path (or the default names) are resolved against. Default process.cwd(). */
  cwd?: string;
  /** Environment to read DATABASE_URL and AMQP_URL from. Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Values from flags; they win over the environment and the file. */
  overrides?: Partial<Record<Overridable, string>>;
}

const KNOWN_KEYS = new Set([
  "tasks",
  "databaseUrl",
  "directUrl",
  "amqpUrl",
  "prisma",
  "table",
  "schema",
  "amqpPrefix",
  "quorumQueues",
  "wakeups",
  "worker",
  "cleaner",
  "logger",
]);

/**
 * Loads the config at `path` (relative to cwd), or the first of CONFIG_FILE_NAMES in cwd. TypeScript is compiled on
 * the fly by tsx's hooks (typescript-hooks.ts); without tsx, a TypeScript config fails with a MissingPackageError.
 */
export async function loadConfig(path?: string, options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const file = locate(cwd, path);
  const hooked = await registerTypeScriptHooks(file);
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    // A JavaScript config that imports TypeScript files needs tsx as well.
    const unknownExtension = (error as { code?: unknown })?.code === "ERR_UNKNOWN_FILE_EXTENSION";
    const hint = !hooked && unknownExtension ? " (TypeScript files load through tsx: npm install tsx)" : "";
    const failure = new ConfigFileError(file, `loading the config failed: ${(error as Error)?.message ?? String(error)}${hint}`);
    (failure as { cause?: unknown }).cause = error;
    throw failure;
  }
  let config = module.default as Record<string, unknown> | undefined;
  // A CommonJS project compiles `export default` to `exports.default`, which import() wraps once more.
  if (config && typeof config === "object" && !("tasks" in config) && "default" in config) config = config.default as Record<string, unknown>;
  if (config === undefined) {
    throw new ConfigFileError(file, "has no default export. End it with `export default defineConfig({ tasks, databaseUrl, amqpUrl })`.");
  }
  const checked = check(file, config);
  const { values, sources } = applyOverrides(checked, { file, cwd, env, overrides: options.overrides });
  return { ...checked, ...values, wakeups: values.wakeups as WakeupsChoice | undefined, sources };
}

/** The first of CONFIG_FILE_NAMES in `cwd`, or undefined when there is none. */
export function findConfigFile(cwd: string): string | undefined {
  return CONFIG_FILE_NAMES.map((name) => resolve(cwd, name)).find((file) => existsSync(file));
}

/**
 * The overridable settings after precedence (flag, then environment variable, then the file's value) and where each
 * came from. `file` is undefined when there is no config file (operator commands and the dashboard run without one).
 */
export function applyOverrides(
  fromFile: Partial<Record<Overridable, string | undefined>>,
  context: { file?: string; cwd: string; env: NodeJS.ProcessEnv; overrides?: Partial<Record<Overridable, string>> },
): { values: Partial<Record<Overridable, string>>; sources: ValueSources } {
  const values: Partial<Record<Overridable, string>> = {};
  const sources: ValueSources = {};
  const shownFile = context.file ? relativeFile(context.cwd, context.file) : undefined;
  for (const key of OVERRIDABLE) {
    const { flag, env } = OVERRIDE_NAMES[key];
    const flagValue = context.overrides?.[key];
    const envValue = env ? nonEmpty(context.env[env]) : undefined;
    if (flagValue !== undefined) [values[key], sources[key]] = [flagValue, flag];
    else if (envValue !== undefined) [values[key], sources[key]] = [envValue, `the environment variable ${env}`];
    else if (fromFile[key] !== undefined) [values[key], sources[key]] = [fromFile[key], `${key} in ${shownFile}`];
  }
  return { values, sources };
}

function relativeFile(cwd: string, file: string): string {
  const shown = relative(cwd, file);
  return shown.startsWith("..") || isAbsolute(shown) ? file : `./${shown}`;
}

function locate(cwd: string, path: string | undefined): string {
  if (path !== undefined) {
    const file = resolve(cwd, path);
    if (!existsSync(file)) throw new ConfigFileError(file, "no such file. Fix the --config path, or create the file with `export default defineConfig({ tasks })`.");
    return file;
  }
  const found = findConfigFile(cwd);
  if (found) return found;
  throw new ConfigFileError(
    resolve(cwd, CONFIG_FILE_NAMES[0]!),
    `no config file found in ${cwd} (looked for ${CONFIG_FILE_NAMES.join(", ")}). ` +
      "Create task-runner.config.ts with `export default defineConfig({ tasks })`, or pass --config <path>.",
  );
}

function check(file: string, config: unknown): LoadedConfig {
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    throw new ConfigFileError(file, `the default export must be defineConfig({ tasks, ... }), got ${describe(config)}.`);
  }
  const raw = config as Record<string, unknown>;
  for (const key of Object.keys(raw)) {
    if (!KNOWN_KEYS.has(key)) throw new ConfigFileError(file, `unknown option "${key}". Known options: ${[...KNOWN_KEYS].join(", ")}.`);
  }
  const tasks = raw.tasks;
  if (tasks === undefined) throw new ConfigFileError(file, "has no tasks. Pass the registry: defineConfig({ tasks: defineTasks({...}) }).");
  if (typeof tasks !== "object" || tasks === null || Array.isArray(tasks)) {
    throw new ConfigFileError(file, `tasks must be the object returned by defineTasks({...}), got ${describe(tasks)}.`);
  }
  if (Object.keys(tasks).length === 0) throw new ConfigFileError(file, "tasks is empty: define at least one task with defineTasks({...}).");
  try {
    defineTasks({ ...(tasks as Record<string, never>) }); // the same checks as defineTasks, on a copy: nothing is frozen
    taskTable(optional(raw, "table"), optional(raw, "schema"));
    checkTransportOptions({ amqpPrefix: optional(raw, "amqpPrefix"), wakeups: raw.wakeups as WakeupsChoice | undefined });
  } catch (error) {
    throw new ConfigFileError(file, (error as Error).message);
  }
  for (const key of ["databaseUrl", "directUrl", "amqpUrl"]) optional(raw, key, file);
  if (raw.quorumQueues !== undefined && typeof raw.quorumQueues !== "boolean") {
    throw new ConfigFileError(file, `quorumQueues must be true or false, got ${describe(raw.quorumQueues)}.`);
  }
  for (const key of ["worker", "cleaner"]) {
    const value = raw[key];
    if (value !== undefined && (typeof value !== "object" || value === null || Array.isArray(value))) {
      throw new ConfigFileError(file, `${key} must be an object of ${key} options, got ${describe(value)}.`);
    }
  }
  if (raw.prisma !== undefined && typeof raw.prisma !== "function" && (typeof raw.prisma !== "object" || raw.prisma === null)) {
    throw new ConfigFileError(file, `prisma must be your extended Prisma client or a function returning it, got ${describe(raw.prisma)}.`);
  }
  const logger = raw.logger as Record<string, unknown> | undefined;
  if (logger !== undefined && !["debug", "info", "warn", "error"].every((level) => typeof logger?.[level] === "function")) {
    throw new ConfigFileError(file, "logger must have debug, info, warn and error methods (or leave it out for the default).");
  }
  return { ...(raw as unknown as RunnerConfig), file, sources: {} };
}

function optional(raw: Record<string, unknown>, key: string, file?: string): string | undefined {
  const value = raw[key];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value === "") {
    const problem = `${key} must be a non-empty string, got ${describe(value)}.`;
    throw file ? new ConfigFileError(file, problem) : new TaskQueueConfigError(key, problem);
  }
  return value;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "function") return "a function";
  if (typeof value === "object") return "an object";
  return valueText(value);
}
