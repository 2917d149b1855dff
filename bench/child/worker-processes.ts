// The harness's side of the worker children: forks them on bare Node from the JavaScript that build-children.ts made
// (optionally profiling their CPU), waits until each has loaded its peer, starts them together, and stops them,
// collecting their reports. A child that fails fails the run.

import { fork, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BUILD_DIR } from "../build-children.js";
import type { ChildReport, ChildSpec, FromChild, ToChild } from "./messages.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
/** Made by buildChildren(), which the harness runs first. */
const childFile = join(BUILD_DIR, "bench/child/worker-child.js");
export const PROFILE_DIR = fileURLToPath(new URL("../results/profiles", import.meta.url));

export interface SpawnOptions {
  processes: number;
  /**
   * When set, each child profiles its CPU between the start and stop messages and writes the profile (with its task
   * count and CPU time) into bench/results/profiles/`${profileName}-${i}`/.
   */
  profileName?: string;
  timeoutMs: number;
}

class Child {
  private readonly waiters = new Map<FromChild["type"], (message: FromChild) => void>();
  private failure: Error | undefined;
  private failed!: (error: Error) => void;
  /** Rejects when the child fails or exits before it was stopped. */
  readonly crashed = new Promise<never>((_, reject) => (this.failed = reject));
  private stopped = false;

  constructor(readonly process: ChildProcess) {
    void this.crashed.catch(() => {});
    process.on("message", (message: FromChild) => {
      if (message.type === "failed") this.fail(new Error(`worker child ${process.pid} failed: ${message.error}`));
      else this.waiters.get(message.type)?.(message);
    });
    process.on("exit", (code, signal) => {
      if (!this.stopped) this.fail(new Error(`worker child ${process.pid} exited early (code ${code}, signal ${signal})`));
    });
  }

  /** Resolves with the next message of `type`; rejects on a crash or after `timeoutMs`. */
  next<T extends FromChild["type"]>(type: T, timeoutMs: number): Promise<Extract<FromChild, { type: T }>> {
    if (this.failure) return Promise.reject(this.failure);
    let timer: NodeJS.Timeout;
    const message = new Promise<Extract<FromChild, { type: T }>>((resolve) => {
      this.waiters.set(type, (m) => resolve(m as Extract<FromChild, { type: T }>));
    });
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`worker child ${this.process.pid}: no "${type}" within ${timeoutMs} ms`)), timeoutMs);
    });
    return Promise.race([message, this.crashed, timeout]).finally(() => clearTimeout(timer));
  }

  send(message: ToChild, stopping = false): void {
    if (stopping) this.stopped = true;
    this.process.send(message);
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.failed(error);
  }
}

/** Worker children of one peer for one scenario. */
export class WorkerProcesses {
  private constructor(
    private readonly children: Child[],
    private readonly timeoutMs: number,
  ) {}

  /** Forks the children and waits until each has loaded its peer's worker code. */
  static async spawn(spec: ChildSpec, options: SpawnOptions): Promise<WorkerProcesses> {
    const children = Array.from({ length: options.processes }, (_, i) => {
      const profileDir = options.profileName ? `${PROFILE_DIR}/${options.profileName}-${i}` : undefined;
      return new Child(
        fork(childFile, [], {
          cwd: root,
          env: { ...process.env, BENCH_CHILD: JSON.stringify(profileDir ? { ...spec, profileDir } : spec) },
          stdio: ["ignore", "inherit", "inherit", "ipc"],
        }),
      );
    });
    const processes = new WorkerProcesses(children, options.timeoutMs);
    try {
      await Promise.all(children.map((child) => child.next("ready", 60_000)));
    } catch (error) {
      processes.kill();
      throw error;
    }
    return processes;
  }

  /** Starts every child at once; resolves with the earliest wall-clock time at which one called its peer's start. */
  async start(): Promise<{ t0: number; allStartedAt: number }> {
    const started = this.children.map((child) => child.next("started", this.timeoutMs));
    for (const child of this.children) child.send({ type: "start" });
    const messages = await Promise.all(started);
    return { t0: Math.min(...messages.map((m) => m.t0)), allStartedAt: Math.max(...messages.map((m) => m.startedAt)) };
  }

  /** Rejects as soon as any child fails; use in a race beside a wait. */
  crashed(): Promise<never> {
    return Promise.race(this.children.map((child) => child.crashed));
  }

  /** Stops every child gracefully and returns their reports. */
  async stop(): Promise<ChildReport[]> {
    const stopped = this.children.map((child) => child.next("stopped", 60_000));
    for (const child of this.children) child.send({ type: "stop" }, true);
    const reports = (await Promise.all(stopped)).map((message) => message.report);
    await Promise.all(this.children.map((child) => exited(child.process)));
    return reports;
  }

  /** Kills every child still running (after a failure). */
  kill(): void {
    for (const child of this.children) if (child.process.exitCode === null) child.process.kill("SIGKILL");
  }
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}
