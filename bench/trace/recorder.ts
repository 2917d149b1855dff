// Records, in one process of a latency trace, when each wake-up passed the library's trace points (src/trace), how
// long each store operation took and which ids it carried, every GC pause, and (in a worker) each handler's start.
// Times are wall-clock ms (clock.ts), comparable across processes. Saved as JSON for bench/trace-latency.ts to join.

import diagnostics from "node:diagnostics_channel";
import { writeFileSync } from "node:fs";
import { PerformanceObserver, performance } from "node:perf_hooks";
import type { Store } from "../../src/index.js";
import { traceChannels, type WakeupTraceMessage } from "../../src/trace/channels.js";
import { wallMs } from "../clock.js";
import { timedStore } from "./timed-store.js";

export type WakeupPoint = "sent" | "published" | "received";

export interface ProcessTrace {
  pid: number;
  /** [point, wall ms, ids]. */
  wakeups: Array<[WakeupPoint, number, string[]]>;
  /** [operation, start, end, ids the operation carried (claims, completions, lease writes), or [] ]. */
  operations: Array<[string, number, number, string[]]>;
  /** [start, duration ms, GC kind]. */
  gc: Array<[number, number, number]>;
  /** [payload n, task id, wall ms at handler start]. */
  starts: Array<[number, string, number]>;
}

export class TraceRecorder {
  readonly trace: ProcessTrace = { pid: process.pid, wakeups: [], operations: [], gc: [], starts: [] };
  private readonly observer: PerformanceObserver;
  private readonly listeners: Array<[diagnostics.Channel, (message: unknown) => void]> = [];

  constructor() {
    const points: Array<[WakeupPoint, diagnostics.Channel]> = [
      ["sent", traceChannels.wakeupsSent],
      ["published", traceChannels.wakeupsPublished],
      ["received", traceChannels.wakeupsReceived],
    ];
    for (const [point, channel] of points) {
      const listener = (message: unknown) => void this.trace.wakeups.push([point, wallMs(), [...(message as WakeupTraceMessage).ids]]);
      channel.subscribe(listener);
      this.listeners.push([channel, listener]);
    }
    this.observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        const kind = (entry as unknown as { detail?: { kind?: number } }).detail?.kind ?? 0;
        this.trace.gc.push([performance.timeOrigin + entry.startTime, entry.duration, kind]);
      }
    });
    this.observer.observe({ entryTypes: ["gc"] });
  }

  /** `store`, with its hot-path operations timed. */
  wrapStore(store: Store): Store {
    return timedStore(store, (operation, began, ended, args, result) => {
      const ids = operation === "claimDue" ? (result as Array<{ id: string }>).map((task) => task.id) : idsOf(operation, args);
      this.trace.operations.push([operation, began, ended, ids]);
    });
  }

  handlerStarted(n: number, id: string): void {
    this.trace.starts.push([n, id, wallMs()]);
  }

  /** Stops recording and writes the trace to `file`. */
  save(file: string): void {
    this.observer.disconnect();
    for (const [channel, listener] of this.listeners) channel.unsubscribe(listener);
    writeFileSync(file, JSON.stringify(this.trace));
  }
}

/** The task ids an operation's arguments name. */
function idsOf(operation: string, args: unknown[]): string[] {
  switch (operation) {
    case "claimByIds":
      return [...(args[0] as string[])];
    case "complete":
    case "fail":
      return (args[1] as Array<{ id: string }>).map((item) => item.id);
    case "extendLeases":
    case "release":
      return [...(args[1] as string[])];
    default:
      return [];
  }
}
