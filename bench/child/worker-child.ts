// A benchmark worker process (run compiled, on bare Node): loads one peer's worker module, starts it when the harness says so, samples its own
// RSS, records handler start times when asked, and reports on stop. Spec in env BENCH_CHILD (JSON, see messages.ts).

import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join } from "node:path";
import { wallMs } from "../clock.js";
import type { WorkerHandle, WorkerStart } from "../peers/peer.js";
import type { ChildReport, ChildSpec, FromChild, ToChild } from "./messages.js";

const spec = JSON.parse(process.env.BENCH_CHILD ?? "null") as ChildSpec | null;
if (!spec || !process.send) throw new Error("worker-child.ts is started by the benchmark harness (child/worker-processes.ts), with BENCH_CHILD set.");

const send = (message: FromChild, then?: () => void) => process.send!(message, undefined, {}, () => then?.());
const starts: Array<[number, number, number]> = [];
let handled = 0;
const onRun = spec.record
  ? (n: number, claimedAtMs?: number) => {
      starts.push([n, wallMs(), claimedAtMs ?? Number.NaN]);
      handled++;
    }
  : () => {
      handled++;
    };

const { startWorker } = (await import(new URL(spec.workerModule, import.meta.url).href)) as {
  startWorker: (start: WorkerStart) => Promise<WorkerHandle>;
};
let handle: WorkerHandle | undefined;
let peakRssBytes = 0;
let startedRssBytes = 0;
let peakHeapTotalBytes = 0;
let peakExternalBytes = 0;
let sampler: NodeJS.Timeout | undefined;
let cpuAtStart: NodeJS.CpuUsage | undefined;
const sample = () => {
  const usage = process.memoryUsage();
  peakRssBytes = Math.max(peakRssBytes, usage.rss);
  peakHeapTotalBytes = Math.max(peakHeapTotalBytes, usage.heapTotal);
  peakExternalBytes = Math.max(peakExternalBytes, usage.external);
};

// The harness died (or was killed): nobody will ever stop this worker, so go now.
process.on("disconnect", () => process.exit(1));
process.on("message", (message: ToChild) => {
  if (message.type === "start") void start();
  else if (message.type === "stop") void stop();
});
send({ type: "ready" });

/** The CPU profiler of the drain's window, when asked for (spec.profileDir). */
let profiler: Session | undefined;

async function startProfiler(): Promise<void> {
  if (!spec!.profileDir) return;
  profiler = new Session();
  profiler.connect();
  await profiler.post("Profiler.enable");
  await profiler.post("Profiler.setSamplingInterval", { interval: 250 }); // µs: a few thousand samples per drain
  await profiler.post("Profiler.start");
}

async function writeProfile(report: ChildReport): Promise<void> {
  if (!profiler) return;
  const { profile } = await profiler.post("Profiler.stop");
  profiler.disconnect();
  mkdirSync(spec!.profileDir!, { recursive: true });
  writeFileSync(join(spec!.profileDir!, `${process.pid}.cpuprofile`), JSON.stringify(profile));
  writeFileSync(join(spec!.profileDir!, `${process.pid}.json`), JSON.stringify({ handled: report.handled, cpuMs: report.cpuMs }));
}

async function start(): Promise<void> {
  try {
    await startProfiler();
    cpuAtStart = process.cpuUsage();
    sample();
    sampler = setInterval(sample, 20);
    const t0 = wallMs();
    handle = await startWorker({ target: spec!.target, concurrency: spec!.concurrency, onRun });
    startedRssBytes = process.memoryUsage.rss();
    send({ type: "started", t0, startedAt: wallMs() });
  } catch (error) {
    send({ type: "failed", error: (error as Error).stack ?? String(error) }, () => process.exit(1));
  }
}

async function stop(): Promise<void> {
  try {
    sample();
    clearInterval(sampler);
    await handle?.stop();
    const cpu = process.cpuUsage(cpuAtStart);
    const report: ChildReport = {
      cpuMs: (cpu.user + cpu.system) / 1000,
      pid: process.pid,
      handled,
      peakRssBytes,
      startedRssBytes,
      peakHeapTotalBytes,
      peakExternalBytes,
      maxRssBytes: process.resourceUsage().maxRSS * 1024,
      starts,
    };
    await writeProfile(report);
    send({ type: "stopped", report }, () => process.exit(0));
  } catch (error) {
    send({ type: "failed", error: (error as Error).stack ?? String(error) }, () => process.exit(1));
  }
}
