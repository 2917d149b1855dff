// Runs `task-runner` as the user would: `node --import tsx src/cli/main.ts …` in a child process, with its cwd at a
// fixture directory (so it finds that directory's task-runner.config.ts).

import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const root = fileURLToPath(new URL("../..", import.meta.url));
const main = join(root, "src/cli/main.ts");

/** The tsx loader as a file URL, so that --import works from a cwd outside the repository too. */
const tsxLoader = (() => {
  const manifest = createRequire(import.meta.url).resolve("tsx/package.json");
  const exports = (JSON.parse(readFileSync(manifest, "utf8")) as { exports: Record<string, string> }).exports["."]!;
  return pathToFileURL(join(dirname(manifest), exports)).href;
})();

export function fixtureDir(name: string): string {
  return join(root, "test/fixtures", name);
}

/** One JSON log line of the CLI. */
export interface CliLogLine {
  level: string;
  message: string;
  [field: string]: unknown;
}

export interface CliRun {
  process: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** stderr parsed as JSON lines (the log format when stderr is not a TTY); other lines are skipped. */
  logs: () => CliLogLine[];
  exited: Promise<number | null>;
}

/** Starts the CLI; resolve `exited` for its exit code. Environment: the test's, plus `env` (undefined values unset). */
export function startCli(args: string[], options: { cwd: string; env?: Record<string, string | undefined> }): CliRun {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
  delete env.DATABASE_URL;
  delete env.AMQP_URL;
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  const child = spawn(process.execPath, ["--import", tsxLoader, main, ...args], { cwd: options.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  return {
    process: child,
    stdout: () => stdout,
    stderr: () => stderr,
    logs: () =>
      stderr.split("\n").flatMap((line) => {
        try {
          return line.startsWith("{") ? [JSON.parse(line) as CliLogLine] : [];
        } catch {
          return [];
        }
      }),
    exited,
  };
}

/** Runs the CLI to completion. */
export async function runCli(
  args: string[],
  options: { cwd: string; env?: Record<string, string | undefined> },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = startCli(args, options);
  const code = await run.exited;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}
