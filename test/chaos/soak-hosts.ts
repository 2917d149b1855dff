// The soak with workers on different hosts (--hosts, scripts/hosts.sh): where each process runs (workers on ptq-w1 and
// ptq-w2, cleaners on ptq-app and ptq-w2, the app on ptq-app), the clock of ptq-w2 skewed ahead of the others, and the
// hosts' own fault beside the others: a worker host cut off from the database and the broker for longer than the
// lease, then restored. Its tasks' leases expire and run elsewhere; back, it must not complete what it no longer holds.

import { APP_HOST, cutHost, onHost, restoreHost, skewedClockEnv, WORKER_HOSTS, type Host } from "../support/hosts.js";
import type { LogLine } from "../support/worker-process.js";
import type { HostCutWindow, SoakFindings } from "./soak-check.js";
import type { Place, Placement, Role } from "./soak-children.js";
import { readRunLog } from "./soak-runlog.js";
import type { SeededRandom } from "./seeded-random.js";

type Placed = ReadonlyMap<number, { host: string; clockSkewMs: number }>;

export const HOST_FAULT_KINDS = ["cut-worker-host"] as const;

/** The host whose clock runs ahead, and by how much. */
export const SKEWED_HOST: Host = "ptq-w2";
export const CLOCK_SKEW_MS = 7_000;

/** A host cut off: when (the orchestrator's clock, the machine's), until when, and the processes on it then. */
export interface HostCut {
  host: Host;
  from: number;
  to: number;
  pids: number[];
}

export class SoakHosts {
  readonly cuts: HostCut[] = [];
  readonly errors: string[] = [];
  private readonly down = new Set<string>();

  constructor(
    private readonly random: SeededRandom,
    private readonly print: (line: string) => void,
  ) {}

  /** Workers on the worker hosts, cleaners on the app host and the skewed worker host: the fewest first, never on a host cut off. */
  readonly place: Place = (role: Role, liveHosts: readonly string[]): Placement => {
    const candidates: string[] = role === "worker" ? [...WORKER_HOSTS] : [APP_HOST, SKEWED_HOST];
    const open = candidates.filter((host) => !this.down.has(host));
    const count = (host: string) => liveHosts.filter((each) => each === host).length;
    const host = (open.length > 0 ? open : candidates).reduce((best, next) => (count(next) < count(best) ? next : best));
    const env = host === SKEWED_HOST ? { ...skewedClockEnv(CLOCK_SKEW_MS), SOAK_CLOCK_SKEW_MS: String(CLOCK_SKEW_MS) } : {};
    return { host, prefix: onHost(host as Host), env };
  };

  /**
   * Cuts a worker host off for `cutMs` (longer than the lease), restores it, waits a few seconds, and again, while
   * `until()` holds. `pidsOn` names the processes on a host; a host where one is starting is not cut (its start would
   * wait out the cut and count as a failed start).
   */
  async run(until: () => boolean, cutMs: () => number, pidsOn: (host: string) => number[], starting: (host: string) => boolean): Promise<void> {
    while (until()) {
      await new Promise((resolve) => setTimeout(resolve, this.random.int(2000, 6000)));
      if (!until()) break;
      const picked = WORKER_HOSTS[this.random.int(0, WORKER_HOSTS.length - 1)]!;
      const host = [picked, ...WORKER_HOSTS].find((each) => !starting(each));
      if (!host) continue;
      const ms = cutMs();
      try {
        this.down.add(host);
        const pids = pidsOn(host);
        await cutHost(host);
        const from = Date.now();
        this.print(`host fault ${new Date(from).toISOString()} cut-worker-host ${host} (pids ${pids.join(", ") || "none"}) for ${ms} ms`);
        await new Promise((resolve) => setTimeout(resolve, ms));
        await restoreHost(host);
        this.cuts.push({ host, from, to: Date.now(), pids });
      } catch (error) {
        this.errors.push(`cut-worker-host ${host}: ${(error as Error).message}`);
      } finally {
        await this.restoreAll();
      }
    }
  }

  /** Every host's link up again. */
  async restoreAll(): Promise<void> {
    for (const host of this.down) await restoreHost(host as Host);
    this.down.clear();
  }

  /** Whether the host of the process that logged `line` was cut off before it logged it (its time unskewed). */
  cutBefore(line: LogLine & { pid: number }, placed: Placed): boolean {
    const at = Date.parse(String(line.time)) - (placed.get(line.pid)?.clockSkewMs ?? 0);
    return this.cuts.some((cut) => cut.pids.includes(line.pid) && cut.from <= at);
  }

  /** Adds the hosts' violations and rows to the soak's findings: the cuts, their re-runs, the skewed host's share. */
  report(findings: SoakFindings, leastCuts: number, placed: Placed, runLogDir: string, print: (line: string) => void): void {
    for (const error of this.errors) findings.violations.push(`a host fault failed: ${error}`);
    if (this.cuts.length < leastCuts) findings.violations.push(`host fault cut-worker-host: ${this.cuts.length}, fewer than ${leastCuts}`);
    const skewed = new Set([...placed].filter(([, where]) => where.host === SKEWED_HOST).map(([pid]) => pid));
    const runs = [...readRunLog(runLogDir).values()].flat();
    const longest = Math.max(0, ...this.cuts.map((cut) => cut.to - cut.from));
    findings.summary.splice(
      -1,
      0,
      [`host fault: cut-worker-host, longest cut (ms); re-runs after a cut`, `${this.cuts.length}, ${longest}; ${findings.rerunsAfterCut.length}`],
      [
        `clock of ${SKEWED_HOST} ahead by ${CLOCK_SKEW_MS} ms: its processes; handler runs there`,
        `${skewed.size}; ${runs.filter((run) => skewed.has(run.pid)).length} of ${runs.length}`,
      ],
    );
    print(`soak: ${findings.rerunsAfterCut.length} tasks ran again because the host of the worker running them was cut off (allowed):`);
    for (const rerun of findings.rerunsAfterCut) print(`  re-run after cut: task ${rerun.id}, attempt ${rerun.attempt} was on pid ${rerun.cutPid}`);
  }

  /** pid → when the host it ran on was cut off (the machine's clock), for the checker. */
  cutTimes(): Map<number, HostCutWindow[]> {
    const times = new Map<number, HostCutWindow[]>();
    for (const { pids, from, to } of this.cuts) for (const pid of pids) times.set(pid, [...(times.get(pid) ?? []), { from, to }]);
    return times;
  }
}
