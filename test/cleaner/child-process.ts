// Starts a test fixture as a child process (node --import tsx) and collects the JSON lines it writes to stdout.

import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

export interface Child {
  process: ChildProcess;
  lines: Array<Record<string, any>>;
  stderr: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  logged(message: string): boolean;
}

export function startFixture(fixture: string, env: Record<string, string>): Child {
  const child = spawn(process.execPath, ["--import", "tsx", `${root}test/fixtures/${fixture}`], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: Array<Record<string, any>> = [];
  const stderr: string[] = [];
  let buffer = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8");
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      try {
        lines.push(JSON.parse(line));
      } catch {
        stderr.push(line);
      }
    }
  });
  child.stderr!.on("data", (chunk: Buffer) => stderr.push(chunk.toString("utf8")));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return {
    process: child,
    lines,
    stderr,
    exited,
    logged: (message) => lines.some((line) => line.message === message),
  };
}

/** Kills a child that is still running and waits for it to exit. */
export async function killChild(child: Child | undefined, signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
  if (!child || child.process.exitCode !== null || child.process.signalCode !== null) return;
  child.process.kill(signal);
  await child.exited;
}
