// Live view of the demo in the terminal: counts by status and throughput, redrawn in place on a TTY,
// one line per second otherwise. Read through the queue's store and the app's client, so it reads either database.

import type { Store } from "../src/index.js";

export interface Snapshot {
  counts: Record<string, number>;
  runs: number;
  elapsedMs: number;
}

/** What the demo reads: the store's counts and the number of successful runs in demo_runs. */
export interface DemoReader {
  store: Store;
  successfulRuns(): Promise<number>;
}

export async function snapshot(reader: DemoReader, startedAt: number): Promise<Snapshot> {
  const [counts, runs] = await Promise.all([reader.store.countTasks(), reader.successfulRuns()]);
  const byStatus: Record<string, number> = {};
  for (const row of counts) byStatus[row.status] = (byStatus[row.status] ?? 0) + row.count;
  return { counts: byStatus, runs, elapsedMs: Date.now() - startedAt };
}

export function render(s: Snapshot, phase: string): string {
  const c = (status: string) => String(s.counts[status] ?? 0).padStart(5);
  const rate = s.elapsedMs > 0 ? Math.round((s.runs * 1000) / s.elapsedMs) : 0;
  return (
    `${phase.padEnd(22)} pending ${c("pending")}  running ${c("running")}  succeeded ${c("succeeded")}  dead ${c("dead")}` +
    `  | ${String(rate).padStart(4)} tasks/s  ${(s.elapsedMs / 1000).toFixed(1).padStart(5)} s`
  );
}

/** Prints `line()` every 250 ms in place (TTY) or every second (log). Returns a stop function. */
export function live(line: () => Promise<string>): () => Promise<void> {
  const tty = process.stdout.isTTY;
  let last = "";
  let stopped = false;
  const loop = (async () => {
    let tick = 0;
    while (!stopped) {
      last = await line();
      if (tty) process.stdout.write(`\r\x1b[2K${last}`);
      else if (tick % 4 === 0) process.stdout.write(`${last}\n`);
      tick++;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    process.stdout.write(tty ? `\r\x1b[2K${await line()}\n` : `${await line()}\n`);
  };
}
