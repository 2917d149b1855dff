// A server binary a test starts of its own (PgBouncer, Prometheus): found on the PATH or in /usr/sbin, spawned with the
// end of its stderr kept for the error, and waited for until it answers; stopped by SIGTERM.

import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { waitUntil } from "./wait.js";

export class ServerProcess {
  private constructor(
    readonly child: ChildProcess,
    private readonly exited: Promise<void>,
  ) {}

  /** Spawns `command` with `args`; resolves once `answers()` is true, or rejects with its stderr when it exits. */
  static async start(command: string, args: string[], what: string, answers: () => Promise<boolean>): Promise<ServerProcess> {
    const child = spawn(binary(command), args, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    const server = new ServerProcess(child, new Promise<void>((resolve) => child.once("exit", () => resolve())));
    try {
      await waitUntil(
        async () => {
          if (child.exitCode !== null) throw new Error(`${command} exited with code ${child.exitCode}: ${stderr}`);
          return answers();
        },
        what,
        15_000,
      );
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGTERM");
    await this.exited;
  }
}

function binary(command: string): string {
  try {
    return execFileSync("sh", ["-c", `command -v ${command} || ls /usr/sbin/${command}`], { encoding: "utf8" })
      .trim()
      .split("\n")[0]!;
  } catch {
    throw new Error(`${command} is not installed: install Debian's package (apt-get install -y ${command}); .ci/run does.`);
  }
}
