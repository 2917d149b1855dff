// The orchestrator's side of the driver process: starts it, mirrors its LoadRecord from the per-transaction messages,
// asks it for wake-ups before commit, and stops it (it finishes its transactions in flight and flushes its publishes).

import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { FromDriver, ToDriver } from "./soak-driver.js";
import { applyDelta, emptyLoadRecord, type LoadRecord } from "./soak-load.js";
import type { SoakWakeups } from "./soak-wakeups.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

export interface DriverSettings {
  databaseUrl: string;
  /** Through the proxy that fails publishing on purpose. */
  amqpUrl: string;
  /** Straight to the broker, for the wake-ups before commit. */
  amqpDirectUrl: string;
  /** "notify": the app wakes through PostgreSQL NOTIFY; "local": through SQLite's local sockets (amqpUrl is then ""). */
  wakeups?: SoakWakeups;
  /** Declare quorum queues (the soak on a RabbitMQ cluster). */
  quorumQueues?: boolean;
  prefix: string;
  seed: number;
  concurrency: number;
  perSecond: number;
  /** Whether the load's workflows wait for the children they start. */
  waitForChildren: boolean;
  /** A command that execs the driver on another host (`ip netns exec ptq-app`, --hosts). */
  onHost?: string[];
}

export class DriverLink {
  readonly load: LoadRecord = emptyLoadRecord();
  /** Resolves once the driver is connected and about to start (rejects if it dies first). */
  readonly ready: Promise<void>;
  private readonly done: Promise<void>;
  private stderr = "";

  private constructor(private readonly child: ChildProcess) {
    let ready!: () => void;
    const started = new Promise<void>((resolve) => (ready = resolve));
    this.done = new Promise<void>((resolve, reject) => {
      child.on("message", (message: FromDriver) => {
        if (message.type === "ready") ready();
        else if (message.type === "tx") applyDelta(this.load, message.delta);
        else if (message.type === "done") resolve();
        else if (message.type === "error") reject(new Error(`the soak driver failed: ${message.message}`));
      });
      child.on("exit", (code) => reject(new Error(`the soak driver exited with ${code}: ${this.stderr.slice(-2000)}`)));
    });
    this.done.catch(() => {});
    this.ready = Promise.race([started, this.done]);
  }

  static async start(settings: DriverSettings): Promise<DriverLink> {
    const [execPath, ...wrapping] = [...(settings.onHost ?? []), process.execPath];
    const child = fork(`${root}test/chaos/soak-driver.ts`, [], {
      cwd: root,
      execPath,
      execArgv: [...wrapping, "--import", "tsx"],
      stdio: ["ignore", "inherit", "pipe", "ipc"],
      env: {
        ...process.env,
        DATABASE_URL: settings.databaseUrl,
        AMQP_URL: settings.amqpUrl,
        SOAK_AMQP_DIRECT: settings.amqpDirectUrl,
        SOAK_WAKEUPS: settings.wakeups ?? "",
        SOAK_QUORUM: settings.quorumQueues ? "1" : "",
        SOAK_PREFIX: settings.prefix,
        SOAK_SEED: String(settings.seed),
        SOAK_CONCURRENCY: String(settings.concurrency),
        SOAK_RATE: String(settings.perSecond),
        SOAK_WAIT_CHILDREN: settings.waitForChildren ? "1" : "",
      },
    });
    const link = new DriverLink(child);
    child.stderr!.on("data", (chunk: Buffer) => (link.stderr += chunk.toString("utf8")));
    await link.ready;
    return link;
  }

  requestEarlyWakeup(): void {
    this.send({ type: "early-wakeup" });
  }

  requestFailingCommit(): void {
    this.send({ type: "failing-commit" });
  }

  /** Stops the load and waits until every transaction it began has settled and its wake-ups are published. */
  async stop(): Promise<void> {
    this.send({ type: "stop" });
    await this.done;
  }

  /** SIGKILLs the driver if it still runs (clean-up after a failure). */
  async kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    this.child.kill("SIGKILL");
    await exited;
  }

  private send(message: ToDriver): void {
    if (this.child.connected) this.child.send(message);
  }
}
