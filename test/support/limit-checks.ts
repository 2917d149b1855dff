// Checks of queue controls from what handlers logged: how many runs overlapped, and how many starts fell within a
// sliding window. Shared by the queue-control process tests and the chaos soak.

/** One handler run, from its start to its end (or to its worker's SIGKILL). */
export interface RunInterval {
  start: number;
  end: number;
}

/** The most runs at once (an end and a start at the same millisecond: the end first, as the slot freed before). */
export function mostAtOnce(runs: readonly RunInterval[]): number {
  const points = runs.flatMap((run) => [
    { t: run.start, d: 1 },
    { t: run.end, d: -1 },
  ]);
  points.sort((a, b) => a.t - b.t || a.d - b.d);
  let now = 0;
  let most = 0;
  for (const point of points) most = Math.max(most, (now += point.d));
  return most;
}

/** The most starts within any window of `windowMs` (a sliding window). */
export function mostStartsWithin(starts: readonly number[], windowMs: number): number {
  const sorted = [...starts].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= windowMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

/**
 * The starts certainly within one window of `windowMs`, the most of any window, when each start is known only to lie
 * between two instants: `from` (the claim's transaction began, by the database clock) and `to` (its handler started).
 * Starts whose whole spans fit between `from` of the earliest and `from + windowMs` were in one window whatever their
 * true instants were, so more of them than the limit is a limit exceeded, never an artefact of how late handlers started.
 */
export function fullestWindowOfStarts<S extends { from: number; to: number }>(starts: readonly S[], windowMs: number): S[] {
  const byFrom = [...starts].sort((a, b) => a.from - b.from);
  let fullest: S[] = [];
  for (let i = 0; i < byFrom.length; i++) {
    const edge = byFrom[i]!.from + windowMs;
    const inside: S[] = [];
    for (let j = i; j < byFrom.length && byFrom[j]!.from < edge; j++) if (byFrom[j]!.to < edge) inside.push(byFrom[j]!);
    if (inside.length > fullest.length) fullest = inside;
  }
  return fullest;
}
