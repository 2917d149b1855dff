// What the harness needs from each queue it measures: a producer side in the harness process (transactions,
// bulk add, seeding, "how many are left") and a worker side that runs in child processes (see child/worker-child.ts).

import type { PeerName } from "../config.js";

/** Where one scenario runs: its own database, and for ours its own RabbitMQ prefix. */
export interface RunTarget {
  databaseUrl: string;
  /** The broker, or "" for none. */
  amqpUrl: string;
  /** Unique per scenario, so wake-ups of one run never reach another's workers. */
  prefix: string;
}

/** The harness-side handle of a peer on one database. */
export interface Producer {
  /**
   * One Prisma interactive transaction that writes a business row and, when `enqueue`, adds one task with payload
   * `{ n }` through the same transaction. Resolves when the commit has returned.
   */
  transaction(n: number, enqueue: boolean): Promise<void>;
  /** Adds `count` tasks with the peer's bulk API, in one transaction (or one call). */
  bulkAdd(count: number): Promise<void>;
  /** Leaves `count` committed tasks ready to run (for ours: their wake-ups confirmed by RabbitMQ). */
  seed(count: number): Promise<void>;
  /**
   * Leaves `count` committed tasks ready to run, each enqueued by a transaction of its own, `concurrency` at a time,
   * each with its own wake-up (ours: the transactions of one app client run one at a time, so its publisher never
   * coalesces two of them into one message). Peers without it run `transaction(n, true)` instead.
   */
  seedSingly?(count: number, concurrency: number): Promise<void>;
  /** Wake-up messages waiting in the broker's queue now; only peers with a broker have it. */
  wakeupsWaiting?(): Promise<number>;
  /** How many tasks are not finished yet; a cheap query, polled while draining. */
  remaining(): Promise<number>;
  /**
   * Adds one task per entry of `delaysMs`, payload `{ n }` (its index), delayed by that many ms, in one call; resolves
   * each task's run_at (database clock, Unix ms) by n. Only peers measured for lateness have it.
   */
  delayedAdd?(delaysMs: readonly number[]): Promise<number[]>;
  /** Waits for background work the peer does after a commit (ours publishes wake-ups). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** The worker side, started inside a child process. */
export interface WorkerHandle {
  stop(): Promise<void>;
}

export interface WorkerStart {
  target: RunTarget;
  concurrency: number;
  /** Called at the very start of every handler with the payload's `n` and, where the peer knows it, the claim's time on the database's clock (Unix ms). */
  onRun: (n: number, claimedAtMs?: number) => void;
}

export interface Peer {
  name: PeerName;
  /** Which database it runs on: the harness makes its databases there (databases.ts, sqlite-files.ts, mysql-databases.ts). */
  database: "postgresql" | "sqlite" | "mysql";
  /** Whether its target gets the local RabbitMQ (`amqpUrl` is "" otherwise: the library's default of no broker). */
  broker: boolean;
  /**
   * Starts its worker inside the harness process, beside the app's client, for the in-process latency row. Only a
   * peer whose wake-ups can travel inside one process has it (ours on SQLite).
   */
  startInProcess?(start: WorkerStart): Promise<WorkerHandle>;
  /** Measured by the lateness scenario (its producer has delayedAdd). */
  measuresLateness?: boolean;
  /** Installs the peer's schema (and the business table) into an empty database, which becomes the template. */
  install(target: RunTarget): Promise<void>;
  open(target: RunTarget): Promise<Producer>;
  /** Removes what the peer left outside the database (ours: the RabbitMQ queues of the prefix). */
  cleanup(target: RunTarget): Promise<void>;
  /** The settings used, for the report: option → value. */
  settings: Record<string, unknown>;
  /**
   * Module of the worker side as compiled by build-children.ts, relative to the compiled bench/child/, exporting
   * `startWorker(start: WorkerStart): Promise<WorkerHandle>`.
   */
  workerModule: string;
}
