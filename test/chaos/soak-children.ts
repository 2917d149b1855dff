// The soak's worker and cleaner processes: starts them, kills them (a worker preferably while a handler of it runs,
// the leading cleaner) and starts their replacements in the background, so slow process starts never stall the faults.
// A process that exits on its own (a crash) is recorded with its stderr: the soak counts it as a violation.

import { WorkerProcess, type LogLine } from "../support/worker-process.js";
import { openRuns } from "./soak-runlog.js";

export type Role = "worker" | "cleaner";

/** Where a process runs (--hosts): its host, the command that runs it there, and what its environment adds. */
export interface Placement {
  host: string;
  prefix: string[];
  env: Record<string, string>;
}

/** Picks the host of the next process of `role`, given the hosts of the live processes of that role. */
export type Place = (role: Role, liveHosts: readonly string[]) => Placement;

export class SoakChildren {
  /** Every process started, with its role, killed ones included (their logs feed the checks and the debug dump). */
  readonly all: Array<{ role: Role; process: WorkerProcess }> = [];
  /** SIGKILLed workers: pid → when the kill was sent. */
  readonly killedWorkers = new Map<number, number>();
  killsMidTask = 0;
  readonly startFailures: string[] = [];
  /** Processes that exited although the soak neither killed nor stopped them: role, pid, exit code and stderr. */
  readonly crashes: string[] = [];
  private readonly ending = new Set<WorkerProcess>();
  private readonly live: Record<Role, WorkerProcess[]> = { worker: [], cleaner: [] };
  private readonly starting = new Set<Promise<void>>();
  /** pid → the host it runs on and the skew of that host's clock (with a `place`). */
  readonly placed = new Map<number, { host: string; clockSkewMs: number }>();
  /** The hosts of the processes starting now, one entry per process. */
  private readonly startingOn: string[] = [];

  constructor(
    private readonly env: (role: Role) => Record<string, string>,
    private readonly runLogDir: string,
    private readonly place?: Place,
  ) {}

  /** Whether a process is starting on `host` now. */
  startingOnHost(host: string): boolean {
    return this.startingOn.includes(host);
  }

  /** The live processes on `host`. */
  pidsOn(host: string): number[] {
    return [...this.live.worker, ...this.live.cleaner].map((process) => process.child.pid!).filter((pid) => this.placed.get(pid)?.host === host);
  }

  /** Starts `count` processes of `role` and waits until they are ready. */
  async start(role: Role, count: number): Promise<void> {
    for (let i = 0; i < count; i++) await this.spawn(role);
  }

  /**
   * SIGKILLs the ready worker with the most handlers running (from the run log), and starts a replacement in the
   * background. False when no worker was ready.
   */
  async killWorker(): Promise<{ pid: number; openRuns: number } | undefined> {
    const candidates = this.live.worker.map((process) => ({ process, open: openRuns(this.runLogDir, process.child.pid!) }));
    if (candidates.length === 0) return undefined;
    const victim = candidates.reduce((best, next) => (next.open > best.open ? next : best));
    const pid = victim.process.child.pid!;
    this.killedWorkers.set(pid, Date.now());
    if (victim.open > 0) this.killsMidTask++;
    await this.replace("worker", victim.process);
    return { pid, openRuns: victim.open };
  }

  /** SIGKILLs the leading cleaner (or, with no leader at that moment, a follower); true when it was the leader. */
  async killLeadingCleaner(pick: <T>(items: readonly T[]) => T): Promise<boolean | undefined> {
    if (this.live.cleaner.length === 0) return undefined;
    const leader = this.live.cleaner.find(leading);
    await this.replace("cleaner", leader ?? pick(this.live.cleaner));
    return leader !== undefined;
  }

  /** Sends `signal` to every live process of `role`. */
  signal(role: Role, signal: NodeJS.Signals): void {
    for (const process of this.live[role]) process.signal(signal);
  }

  /** Waits for replacements still starting. */
  async settled(): Promise<void> {
    while (this.starting.size > 0) await Promise.all([...this.starting]);
  }

  /** From the processes' periodic stats: the worst event-loop delay and the mean CPU use of a process of `role`. */
  stats(role: Role): { loopDelayMaxMs: number; cpuPercent: number } {
    const lines = this.lines(role).filter((line) => line.message === "soak process stats");
    const cpu = lines.map((line) => Number(line.cpuPercent));
    return {
      loopDelayMaxMs: Math.max(0, ...lines.map((line) => Number(line.loopDelayMaxMs))),
      cpuPercent: cpu.length ? Math.round(cpu.reduce((a, b) => a + b, 0) / cpu.length) : 0,
    };
  }

  /** Log lines of every process of `role`, each with the process's pid. */
  lines(role: Role): Array<LogLine & { pid: number }> {
    return this.all.filter((entry) => entry.role === role).flatMap((entry) => entry.process.lines.map((line) => ({ ...line, pid: entry.process.child.pid! })));
  }

  /** SIGTERM every live process (of `role` only, when given), SIGKILL what has not exited within 8 s. */
  async stop(role?: Role): Promise<void> {
    await this.settled().catch(() => {});
    const stopping = this.all.filter((entry) => role === undefined || entry.role === role);
    for (const { process } of stopping) this.ending.add(process);
    if (role) this.live[role] = [];
    await Promise.all(
      stopping.map(async ({ process }) => {
        process.signal("SIGTERM");
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([process.exited, new Promise((resolve) => (timer = setTimeout(resolve, 8000)))]);
        clearTimeout(timer);
        await process.kill();
      }),
    );
  }

  private async replace(role: Role, victim: WorkerProcess): Promise<void> {
    this.live[role].splice(this.live[role].indexOf(victim), 1);
    this.ending.add(victim);
    await victim.kill();
    const started = this.spawn(role).catch((error: Error) => void this.startFailures.push(`${role} replacement: ${error.message}`));
    this.starting.add(started);
    void started.finally(() => this.starting.delete(started));
  }

  private async spawn(role: Role): Promise<void> {
    const placement = this.place?.(
      role,
      this.live[role].map((process) => this.placed.get(process.child.pid!)?.host ?? ""),
    );
    const env = { ...this.env(role), ...placement?.env };
    this.startingOn.push(placement?.host ?? "");
    const process = await WorkerProcess.start(env, "test/chaos/soak-process.ts", role === "worker" ? "worker started" : "cleaner started", placement?.prefix).finally(
      () => this.startingOn.splice(this.startingOn.indexOf(placement?.host ?? ""), 1),
    );
    if (placement) this.placed.set(process.child.pid!, { host: placement.host, clockSkewMs: Number(env.SOAK_CLOCK_SKEW_MS || 0) });
    this.all.push({ role, process });
    this.live[role].push(process);
    void process.exited.then((code) => {
      if (this.ending.has(process)) return;
      const live = this.live[role];
      if (live.includes(process)) live.splice(live.indexOf(process), 1);
      this.crashes.push(`${role} pid ${process.child.pid} exited on its own (code ${code}, signal ${process.child.signalCode}): ${process.stderrTail(1500)}`);
    });
  }
}

function leading(child: WorkerProcess): boolean {
  const last = [...child.lines].reverse().find((line) => /cleaner (is leading|stopped leading|lost its|could not renew)/.test(line.message));
  return last?.message === "cleaner is leading" && child.child.exitCode === null;
}
