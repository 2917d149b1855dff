// One line of figures for a crash report: what the crash tests print, and the docs quote.

import type { CrashReport } from "./crash-drain.js";

/** The report's counts and figures as JSON (lists as their lengths). */
export function crashSummary(report: CrashReport): string {
  const { reran, afterFailure, unexplainedReruns, afterLeaseLoss, overlapping, unfinished, wrongEffects, ...figures } = report;
  return JSON.stringify({
    ...figures,
    drainRate: Math.round(figures.drainRate),
    downMs: Math.round(figures.downMs),
    lostWindowMs: Math.round(figures.lostWindowMs),
    reran: reran.length,
    afterFailure: afterFailure.length,
    afterLeaseLoss: afterLeaseLoss.length,
    unexplainedReruns: unexplainedReruns.length,
    overlapping: overlapping.length,
    unfinished: unfinished.length,
    wrongEffects: wrongEffects.length,
  });
}
