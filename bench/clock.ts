// One wall clock for every process of a run: performance.timeOrigin + performance.now(), in milliseconds.
// Both the harness and the worker children read it, so a commit time and a handler start time can be subtracted.

export function wallMs(): number {
  return performance.timeOrigin + performance.now();
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
