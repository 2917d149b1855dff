// The IPC messages between the harness and a worker child process, and the report a child sends when stopped.
// Times are wall-clock milliseconds from clock.ts, comparable across processes.

import type { RunTarget } from "../peers/peer.js";

/** Environment of a child: which peer's worker to start, where, and how. */
export interface ChildSpec {
  /** Path of the peer's worker module, relative to bench/child/. */
  workerModule: string;
  target: RunTarget;
  concurrency: number;
  /** Record the start time of every handler (the latency scenario). */
  record: boolean;
  /**
   * Profile the CPU from the start message to the stop message (the window `cpuMs` covers), through node:inspector,
   * and write `<pid>.cpuprofile` and `<pid>.json` (the report's `handled` and `cpuMs`) into this directory.
   */
  profileDir?: string;
}

export type ToChild = { type: "start" } | { type: "stop" };

export type FromChild =
  | { type: "ready" }
  /** `t0`: just before the peer's start call; `startedAt`: when it resolved. */
  | { type: "started"; t0: number; startedAt: number }
  | { type: "stopped"; report: ChildReport }
  | { type: "failed"; error: string };

export interface ChildReport {
  pid: number;
  /** Handler runs seen by this process. */
  handled: number;
  /** Highest resident set size sampled every 20 ms between start and stop, in bytes. */
  peakRssBytes: number;
  /** Highest V8 heap (total) and off-heap (external, incl. Buffers) sampled with the RSS, in bytes. */
  peakHeapTotalBytes: number;
  peakExternalBytes: number;
  /** RSS right after the peer's start call resolved (code loaded, connections open), in bytes. */
  startedRssBytes: number;
  /** The kernel's maximum RSS of the whole process life (includes loading the code), in bytes. */
  maxRssBytes: number;
  /** CPU time of this process (user + system) from the start message to the stop message, in ms. */
  cpuMs: number;
  /** [n, wall-clock ms at handler start, claim time on the database's clock (NaN when unknown)], when recording. */
  starts: Array<[number, number, number]>;
}
