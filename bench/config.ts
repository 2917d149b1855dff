// The benchmark's sizes and switches, read once from the command line and the environment.
// `--quick` shrinks every scenario for a smoke run; `--only=a,b` and `--peers=x,y` narrow a run while profiling;
// `--repeats=n` sets the runs of each drain layout (default 3).

/**
 * The queues measured side by side: ours, graphile-worker and pg-boss on PostgreSQL, and ours on the other dialects
 * (ours-sqlite: a SQLite file with the library's default options, so no broker; ours-mysql: MariaDB or MySQL with the
 * library's default options and RabbitMQ wake-ups, as ours on PostgreSQL; ours-notify: PostgreSQL without a broker, so
 * the library's default NOTIFY wake-ups).
 */
export const PEERS = ["ours", "graphile-worker", "pg-boss", "ours-sqlite", "ours-mysql", "ours-notify"] as const;
export type PeerName = (typeof PEERS)[number];

/** The benchmark's scenarios, in the order they run. */
export const SCENARIOS = ["enqueue", "bulk", "drain", "latency", "lateness", "controls", "backlog", "retention"] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

export interface BenchConfig {
  /** Seconds each transaction-rate measurement runs (split into alternating slices with and without the enqueue). */
  txSeconds: number;
  /** Tasks enqueued by one enqueueMany / addJobs / insert. */
  bulkCount: number;
  /** Tasks drained in scenario 3. */
  drainCount: number;
  /** Runs of each drain layout (each on a fresh database); the table shows the median. */
  drainRepeats: number;
  /** Enqueue rate of the latency scenario, per second. */
  latencyRate: number;
  /** How long the latency scenario enqueues, in seconds. */
  latencySeconds: number;
  /** Tasks of the lateness scenario, delayed uniformly from 0.2 to 5 s. */
  latenessCount: number;
  /** Give up on a drain or a latency run after this many seconds. */
  timeoutSeconds: number;
  /** Scenarios to run. */
  only: ScenarioName[];
  /** Peers to run. */
  peers: PeerName[];
  /** Profile the worker children's CPU over each run's window, into bench/results/profiles, and print where it goes. */
  profile: boolean;
  /** A smoke run: small sizes, numbers not meaningful. */
  quick: boolean;
}

function repeats(raw: string): number {
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 1 || n > 20) throw new Error(`--repeats: must be an integer from 1 to 20, got "${raw}".`);
  return n;
}

export function readConfig(argv: readonly string[] = process.argv.slice(2), env: NodeJS.ProcessEnv = process.env): BenchConfig {
  const flag = (name: string) => argv.includes(`--${name}`);
  const value = (name: string) => argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
  const quick = flag("quick") || env.BENCH_QUICK === "1";
  const list = <T extends string>(raw: string | undefined, all: readonly T[], what: string): T[] => {
    if (!raw) return [...all];
    const items = raw.split(",").map((item) => item.trim());
    for (const item of items) {
      if (!all.includes(item as T)) throw new Error(`--${what}: unknown "${item}"; use a comma-separated list of ${all.join(", ")}.`);
    }
    return items as T[];
  };
  return {
    txSeconds: quick ? 1 : 4,
    bulkCount: quick ? 1000 : 20_000,
    drainCount: quick ? 1000 : 20_000,
    drainRepeats: value("repeats") ? repeats(value("repeats")!) : quick ? 1 : 3,
    latencyRate: 200,
    latencySeconds: quick ? 1 : 10,
    latenessCount: quick ? 200 : 2000,
    timeoutSeconds: quick ? 60 : 120,
    only: list(value("only"), SCENARIOS, "only"),
    peers: list(value("peers"), PEERS, "peers"),
    profile: flag("profile") || env.BENCH_CPU_PROF === "1",
    quick,
  };
}
