// The soak's verdict on queue controls, from the handlers' run log: the limited queue never ran more than its
// concurrency at once, nor an account more than one; the rate-limited queue never started more than its rate in any
// window; the paused queue started nothing claimed while it was paused.

import { fullestWindowOfStarts, mostAtOnce } from "../support/limit-checks.js";
import type { Run } from "./soak-runlog.js";
import { SOAK_LIMITS, SOAK_PAUSED_QUEUE } from "./soak-tasks.js";

/** A pause by the database clock: from after the pause committed to before the resume began. */
export interface PauseWindow {
  from: number;
  to: number;
}

export interface ControlFindings {
  limitedStarts: number;
  mostLimitedAtOnce: number;
  ratedStarts: number;
  mostRatedInWindow: number;
  pausedStarts: number;
}

/**
 * Checks the controls. A run ends when its handler ended or, with no end logged, when its worker was SIGKILLed (its
 * slot is held until the cleaner recovers the lease, so a later start of the same slot comes after that). A run whose
 * host was cut off (`cutAt`, --hosts) ends for the queue there: its lease expires and frees its slot, while its handler
 * may go on, unheard of.
 */
export function checkControls(
  runs: ReadonlyMap<string, readonly Run[]>,
  killedWorkers: ReadonlyMap<number, number>,
  pauses: readonly PauseWindow[],
  flag: (id: string, text: string) => void,
  report: (text: string) => void,
  cutAt: (run: Run) => number | undefined = () => undefined,
  suspect?: (id: string) => void,
): ControlFindings {
  const all = [...runs.entries()].flatMap(([id, list]) =>
    list.map((run): Span => {
      const killedAt = killedWorkers.get(run.pid);
      const cut = cutAt(run);
      const how = run.end ? run.end.e : killedAt !== undefined ? "its worker killed" : "no end";
      const end = Math.min(run.end?.t ?? killedAt ?? Infinity, cut ?? Infinity);
      return { ...run, id, end, how: cut !== undefined && cut === end ? "its host cut off" : how };
    }),
  );
  // A limit exceeded: one violation, naming the overlapping runs; each of them a suspect for the debug dump, so that it
  // shows how every one of them was claimed.
  const exceeded = (spans: readonly Span[], text: string) => {
    const runsAtOnce = overlapping(spans);
    flag(runsAtOnce[0]?.id ?? "", `${text}; the runs: ${runsAtOnce.map(describe).join("; ")}`);
    for (const run of runsAtOnce.slice(1)) suspect?.(run.id);
  };
  const limited = all.filter((run) => run.queue === "soak-limited");
  const mostLimitedAtOnce = mostAtOnce(limited);
  if (mostLimitedAtOnce > SOAK_LIMITS.queue) {
    exceeded(limited, `soak-limited ran ${mostLimitedAtOnce} tasks at once, above its concurrency of ${SOAK_LIMITS.queue}`);
  }
  const accounts = new Set(limited.map((run) => run.key ?? ""));
  for (const account of accounts) {
    const runsOf = limited.filter((run) => run.key === account);
    const most = mostAtOnce(runsOf);
    if (most > SOAK_LIMITS.perAccount) {
      exceeded(runsOf, `account ${account} of soak-limited ran ${most} tasks at once, above its limit of ${SOAK_LIMITS.perAccount}`);
    }
  }

  const rated = all.filter((run) => run.queue === "soak-rated");
  const fullest = fullestWindowOfStarts(
    rated.map((run) => ({ run, from: run.claimedAt ?? run.start, to: run.start })),
    SOAK_LIMITS.rate.perMs,
  );
  const mostRatedInWindow = fullest.length;
  if (mostRatedInWindow > SOAK_LIMITS.rate.starts) {
    const runs = fullest.map(({ run }) => describe(run)).join("; ");
    report(`soak-rated started ${mostRatedInWindow} tasks within ${SOAK_LIMITS.rate.perMs} ms, above its rate of ${SOAK_LIMITS.rate.starts}; the runs: ${runs}`);
  }

  let pausedStarts = 0;
  for (const run of all.filter((each) => each.queue === SOAK_PAUSED_QUEUE)) {
    const claimedAt = run.claimedAt ?? run.start;
    const pause = pauses.find((window) => claimedAt > window.from && claimedAt < window.to);
    if (pause) {
      pausedStarts++;
      flag(
        run.id,
        `task ${run.id} of ${SOAK_PAUSED_QUEUE} was claimed at ${new Date(claimedAt).toISOString()}, while its queue was paused (${pause.to - pause.from} ms from ${new Date(pause.from).toISOString()})`,
      );
    }
  }
  return { limitedStarts: limited.length, mostLimitedAtOnce, ratedStarts: rated.length, mostRatedInWindow, pausedStarts };
}

type Span = Omit<Run, "end"> & { id: string; end: number; how: string };

/** The runs that overlap at least one other run of `runs`, at most 10. */
function overlapping(runs: readonly Span[]): Span[] {
  return runs.filter((run) => runs.some((other) => other !== run && other.start < run.end && run.start < other.end)).slice(0, 10);
}

function describe(run: Span): string {
  const at = (t: number | undefined) => (t === undefined || !Number.isFinite(t) ? String(t) : new Date(t).toISOString());
  return `run of task ${run.id} attempt ${run.attempt} on pid ${run.pid}: claimed ${at(run.claimedAt)}, started ${at(run.start)}, ended ${at(run.end)} (${run.how})`;
}
