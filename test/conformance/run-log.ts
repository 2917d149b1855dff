// The conformance handlers' run log: one JSON line per handler start and end, appended synchronously to a file per
// process, so a SIGKILL cannot lose an event and no database write is needed to know what ran.

import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface RunEvent {
  id: string;
  e: "start" | "end";
  attempt: number;
  worker: string;
  t: number;
}

/** Appends one event to this process's file in `dir`. */
export function logRun(dir: string, event: Omit<RunEvent, "t">): void {
  mkdirSync(dir, { recursive: true });
  appendFileSync(join(dir, `${process.pid}.jsonl`), `${JSON.stringify({ ...event, t: Date.now() })}\n`);
}

/** Every event in `dir`, by task id, in time order. A torn last line (a SIGKILL mid-write) is skipped. */
export function readRuns(dir: string): Map<string, RunEvent[]> {
  const byTask = new Map<string, RunEvent[]>();
  if (!existsSync(dir)) return byTask;
  for (const file of readdirSync(dir).filter((name) => name.endsWith(".jsonl"))) {
    for (const line of readFileSync(join(dir, file), "utf8").split("\n")) {
      if (!line) continue;
      let event: RunEvent;
      try {
        event = JSON.parse(line) as RunEvent;
      } catch {
        continue;
      }
      const list = byTask.get(event.id) ?? [];
      list.push(event);
      byTask.set(event.id, list);
    }
  }
  for (const list of byTask.values()) list.sort((a, b) => a.t - b.t);
  return byTask;
}

/** How many times each id's handler started. */
export function startsOf(dir: string): Map<string, number> {
  const starts = new Map<string, number>();
  for (const [id, events] of readRuns(dir)) starts.set(id, events.filter((event) => event.e === "start").length);
  return starts;
}
