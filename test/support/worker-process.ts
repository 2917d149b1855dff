// Starts a worker in a child process (test/fixtures/worker-main.ts) and reads its JSON log lines, so tests can
// wait for a state change, send it signals, and kill it for real.

import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { waitUntil } from "./wait.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

export interface LogLine {
  message: string;
  [field: string]: unknown;
}

export class WorkerProcess {
  readonly lines: LogLine[] = [];
  readonly exited: Promise<number | null>;
  private stderr = "";

  private constructor(readonly child: ChildProcess) {
    let buffered = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      let newline: number;
      while ((newline = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        try {
          this.lines.push(JSON.parse(line) as LogLine);
        } catch {
          this.lines.push({ message: line });
        }
      }
    });
    child.stderr!.on("data", (chunk: Buffer) => (this.stderr += chunk.toString("utf8")));
    this.exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  }

  /**
   * Spawns `entry` with `env` added to this process's environment; resolves once it logged `ready`. `prefix`: a command
   * that execs the program (e.g. `ip netns exec HOST`: it runs on another host and keeps its pid).
   */
  static async start(env: Record<string, string>, entry = "test/fixtures/worker-main.ts", ready = "worker started", prefix: string[] = []): Promise<WorkerProcess> {
    const [program, ...args] = [...prefix, process.execPath, "--import", "tsx", entry];
    const child = spawn(program, args, {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const worker = new WorkerProcess(child);
    try {
      await worker.waitForLog((line) => line.message === ready, `"${ready}"`, 60_000);
    } catch (error) {
      await worker.kill(); // not ready in time: it must not go on working unwatched
      throw error;
    }
    return worker;
  }

  /** Waits for a log line matching `predicate`; fails with the process's stderr when it exits or times out first. */
  async waitForLog(predicate: (line: LogLine) => boolean, what: string, timeoutMs = 20_000): Promise<LogLine> {
    let found: LogLine | undefined;
    try {
      await waitUntil(
        () => {
          found = this.lines.find(predicate);
          if (!found && this.child.exitCode !== null) throw new Error(`worker exited with ${this.child.exitCode}`);
          return found !== undefined;
        },
        what,
        timeoutMs,
      );
    } catch (error) {
      throw new Error(`${(error as Error).message}\nstderr: ${this.stderr.slice(-2000)}`, { cause: error });
    }
    return found!;
  }

  /** The last `chars` characters the process wrote to stderr. */
  stderrTail(chars = 2000): string {
    return this.stderr.slice(-chars);
  }

  /** True once a line with this message was logged. */
  logged(message: string): boolean {
    return this.lines.some((line) => line.message === message);
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** SIGKILLs the process if it still runs and waits for it to exit. */
  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
    await this.exited;
  }
}
