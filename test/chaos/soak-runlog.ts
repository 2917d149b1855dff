// Reads the soak's run log (the handlers' JSON lines, one file per worker process) into runs per task, and finds
// which worker has a handler running right now (to kill it mid-task).

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runLogFile, type RunEvent } from "./soak-tasks.js";

/** One handler run: when it started, and how it ended (absent when its process died first). */
export interface Run {
  pid: number;
  attempt: number;
  start: number;
  queue?: string;
  key?: string | null;
  /** The claim's time by the database clock. */
  claimedAt?: number;
  end?: { e: "ok" | "fail" | "abort" | "suspend"; t: number; reason?: string };
}

function parse(text: string): RunEvent[] {
  const events: RunEvent[] = [];
  for (const line of text.split("\n")) {
    // A process killed mid-write can leave a torn last line; everything before it is whole.
    if (line) {
      try {
        events.push(JSON.parse(line) as RunEvent);
      } catch {
        /* torn line */
      }
    }
  }
  return events;
}

/** Every run of every task, each task's runs in start order. */
export function readRunLog(dir: string): Map<string, Run[]> {
  const runs = new Map<string, Run[]>();
  for (const file of readdirSync(dir).filter((name) => name.endsWith(".jsonl"))) {
    const open = new Map<string, Run>();
    for (const event of parse(readFileSync(join(dir, file), "utf8"))) {
      const key = `${event.id}:${event.attempt}`;
      if (event.e === "start") {
        const run: Run = { pid: event.pid, attempt: event.attempt, start: event.t, queue: event.queue, key: event.key, claimedAt: event.claimedAt };
        open.set(key, run);
        const list = runs.get(event.id) ?? [];
        list.push(run);
        runs.set(event.id, list);
      } else {
        const run = open.get(key);
        if (run) run.end = { e: event.e, t: event.t, reason: event.reason };
      }
    }
  }
  for (const list of runs.values()) list.sort((a, b) => a.start - b.start || a.attempt - b.attempt);
  return runs;
}

/** How many handlers of process `pid` have started and not ended yet. */
export function openRuns(dir: string, pid: number): number {
  const file = runLogFile(dir, pid);
  if (!existsSync(file)) return 0;
  const open = new Set<string>();
  for (const event of parse(readFileSync(file, "utf8"))) {
    const key = `${event.id}:${event.attempt}`;
    if (event.e === "start") open.add(key);
    else open.delete(key);
  }
  return open.size;
}
