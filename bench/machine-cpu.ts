// CPU time the whole machine spent busy (every process: workers, database, broker, harness), from /proc/stat, in ms.
// On this 2-core machine a drain is bounded by CPU, so CPU per task says more than a rate that the scheduler shapes.

import { readFileSync } from "node:fs";

/** USER_HZ: /proc/stat counts in hundredths of a second on Linux. */
const MS_PER_TICK = 10;

/** Busy CPU time of all cores since boot (user, nice, system, irq, softirq, steal), in ms; undefined off Linux. */
export function machineBusyMs(): number | undefined {
  let line: string;
  try {
    line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!;
  } catch {
    return undefined;
  }
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) * MS_PER_TICK;
}
