// Live view of the demo in the terminal: counts by status and throughput, redrawn in place on a TTY,
// one line per second otherwise.

import type pg from "pg";

export interface Snapshot {
  counts: Record<string, number>;
  runs: number;
  elapsedMs: number;
}

export async function snapshot(pool: pg.Pool, startedAt: number): Promise<Snapshot> {
  const [{ rows }, runs] = await Promise.all([
    pool.query("SELECT status, count(*)::int AS n FROM tasks GROUP BY status"),
    pool.query("SELECT count(*)::int AS n FROM demo_runs WHERE outcome = 'succeeded'"),
  ]);
  return { counts: Object.fromEntries(rows.map((r) => [r.status, r.n])), runs: runs.rows[0].n, elapsedMs: Date.now() - startedAt };
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
