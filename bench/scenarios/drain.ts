// Scenario 3 (and 5): `count` committed tasks waiting (for ours with their wake-ups in RabbitMQ), then worker
// processes start; timed from the first child's start call until the database shows every task finished.
// Each child samples its own RSS, so the peak is the worker's alone.

import { sleep, wallMs } from "../clock.js";
import { WorkerProcesses } from "../child/worker-processes.js";
import { machineBusyMs } from "../machine-cpu.js";
import type { Peer, Producer, RunTarget } from "../peers/peer.js";

export interface DrainResult {
  processes: number;
  concurrency: number;
  count: number;
  tasksPerSecond: number;
  durationMs: number;
  /** Highest RSS any one worker process reached during the drain, in MB. */
  peakRssMb: number;
  /** Highest V8 heap total and off-heap memory of any worker process, in MB: where the RSS went. */
  peakHeapTotalMb: number;
  peakExternalMb: number;
  /** RSS of the largest worker right after its start call resolved (before most of the drain), in MB. */
  startedRssMb: number;
  /** The kernel's lifetime maximum RSS of the largest worker (includes loading code), in MB. */
  maxRssMb: number;
  /** Handler runs the children counted (a duplicate run shows as more than `count`). */
  handled: number;
  /** CPU time of the worker processes (from their start call to their stop) per 1,000 tasks, in ms. */
  workerCpuMsPer1000: number;
  /**
   * CPU time of the whole machine (workers, database, broker, the harness's polling) from the start call until the
   * harness saw every task finished, per 1,000 tasks, in ms; undefined off Linux.
   */
  machineCpuMsPer1000?: number;
}

const POLL_MS = 10;

export async function drain(
  peer: Peer,
  producer: Producer,
  target: RunTarget,
  layout: {
    processes: number;
    concurrency: number;
    count: number;
    timeoutMs: number;
    profileName?: string;
    /** How the backlog is left before the workers start. Default: producer.seed (one transaction). */
    seed?: (count: number) => Promise<void>;
  },
): Promise<DrainResult> {
  await (layout.seed ? layout.seed(layout.count) : producer.seed(layout.count));
  const workers = await WorkerProcesses.spawn(
    { workerModule: peer.workerModule, target, concurrency: layout.concurrency, record: false },
    { processes: layout.processes, profileName: layout.profileName, timeoutMs: layout.timeoutMs },
  );
  try {
    const busyBefore = machineBusyMs();
    const started = workers.start();
    const crashed = workers.crashed();
    const deadline = wallMs() + layout.timeoutMs;
    await Promise.race([
      crashed,
      (async () => {
        while ((await producer.remaining()) > 0) {
          if (wallMs() > deadline) throw new Error(`${peer.name}: tasks still unfinished after ${layout.timeoutMs} ms of draining`);
          await sleep(POLL_MS);
        }
      })(),
    ]);
    const finishedAt = wallMs();
    const busyAfter = machineBusyMs();
    const { t0 } = await Promise.race([started, crashed]);
    const reports = await workers.stop();
    const durationMs = finishedAt - t0;
    return {
      processes: layout.processes,
      concurrency: layout.concurrency,
      count: layout.count,
      tasksPerSecond: (layout.count * 1000) / durationMs,
      durationMs,
      peakRssMb: Math.max(...reports.map((r) => r.peakRssBytes)) / 2 ** 20,
      peakHeapTotalMb: Math.max(...reports.map((r) => r.peakHeapTotalBytes)) / 2 ** 20,
      peakExternalMb: Math.max(...reports.map((r) => r.peakExternalBytes)) / 2 ** 20,
      startedRssMb: Math.max(...reports.map((r) => r.startedRssBytes)) / 2 ** 20,
      maxRssMb: Math.max(...reports.map((r) => r.maxRssBytes)) / 2 ** 20,
      handled: reports.reduce((sum, r) => sum + r.handled, 0),
      workerCpuMsPer1000: (reports.reduce((sum, r) => sum + r.cpuMs, 0) * 1000) / layout.count,
      ...(busyBefore !== undefined && busyAfter !== undefined ? { machineCpuMsPer1000: ((busyAfter - busyBefore) * 1000) / layout.count } : {}),
    };
  } catch (error) {
    workers.kill();
    throw error;
  }
}
