// Child processes of the end-to-end test (the Next.js server, the task runner, build steps): each in its own
// process group with its output in .artifacts/<name>.log, stopped with SIGTERM, then SIGKILL if it hangs.

import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const appDir = fileURLToPath(new URL("../..", import.meta.url));
export const artifactsDir = join(appDir, ".artifacts");

export interface Started {
  name: string;
  child: ChildProcess;
  logFile: string;
  /** The last lines of its output, for failure messages. */
  tail(lines?: number): string;
  /** SIGTERM to its group, SIGKILL after `graceMs`; resolves when it has exited. */
  stop(graceMs?: number): Promise<void>;
}

export function start(name: string, command: string, args: string[], env: NodeJS.ProcessEnv): Started {
  mkdirSync(artifactsDir, { recursive: true });
  const logFile = join(artifactsDir, `${name}.log`);
  const fd = openSync(logFile, "w");
  const child = spawn(command, args, { cwd: appDir, env, detached: true, stdio: ["ignore", fd, fd] });
  closeSync(fd);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, name);
    } catch {
      // the group is gone already
    }
  };
  return {
    name,
    child,
    logFile,
    tail: (lines = 40) => readFileSync(logFile, "utf8").trimEnd().split("\n").slice(-lines).join("\n"),
    async stop(graceMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      signal("SIGTERM");
      const timer = setTimeout(() => signal("SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Runs a command to its end; rejects with the tail of its output when it fails. */
export async function run(name: string, command: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const started = start(name, command, args, env);
  const code = await new Promise<number | null>((resolve) => started.child.once("exit", (exitCode) => resolve(exitCode)));
  if (code !== 0) throw new Error(`${name} (${command} ${args.join(" ")}) exited with ${code}:\n${started.tail()}`);
}

/** A TCP port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Waits until `url` answers 200, failing early if `process` exits. */
export async function waitForHttp(url: string, process: Started, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (process.child.exitCode !== null) throw new Error(`${process.name} exited with ${process.child.exitCode}:\n${process.tail()}`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms; ${process.name} said:\n${process.tail()}`);
}

/** Resolves or rejects with `work`, but rejects at once, with its output, if one of `processes` exits first. */
export async function whileRunning<T>(processes: Started[], work: Promise<T>): Promise<T> {
  let onExit: (() => void) | undefined;
  const exited = new Promise<never>((_, reject) => {
    onExit = () => {
      const gone = processes.find((p) => p.child.exitCode !== null || p.child.signalCode !== null);
      if (gone) reject(new Error(`${gone.name} exited (${gone.child.exitCode ?? gone.child.signalCode}) while the test waited:\n${gone.tail()}`));
    };
    for (const p of processes) p.child.once("exit", onExit);
    onExit();
  });
  try {
    return await Promise.race([work, exited]);
  } finally {
    for (const p of processes) p.child.off("exit", onExit!);
  }
}
