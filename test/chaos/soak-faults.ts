// The soak's fault schedule: seeded, printed, and executed against real processes and the test's own TCP proxies.
// Never touches the machine's shared PostgreSQL or RabbitMQ.

import type { DatabaseFaultKind } from "./soak-database.js";
import type { SeededRandom } from "./seeded-random.js";

/** The faults of every soak; each database adds its own (soak-database.ts). */
export const COMMON_FAULT_KINDS = [
  "kill-worker",
  "kill-leading-cleaner",
  "cut-broker",
  "stall-broker",
  "duplicate-wakeups",
  "phantom-wakeups",
  "early-wakeup",
  "publish-failure",
  "failing-commit",
  "pause-queue",
] as const;

export type FaultKind = (typeof COMMON_FAULT_KINDS)[number] | DatabaseFaultKind;

/** What the schedule acts on; the orchestrator implements it. */
export interface FaultTargets {
  /** Return what they killed, for the fault log; undefined when no process was ready to be killed (not counted). */
  killWorker(): Promise<string | undefined>;
  killLeadingCleaner(): Promise<string | undefined>;
  /** Injects a database fault; resolves with what it did. */
  database(kind: DatabaseFaultKind, random: SeededRandom): Promise<string>;
  cutBroker(): void;
  stallBroker(ms: number): Promise<void>;
  duplicateWakeups(count: number): number;
  phantomWakeups(count: number): void;
  requestEarlyWakeup(): void;
  /** The driver's next transaction fails at COMMIT for a lasting reason, with an enqueue issued while it is open. */
  requestFailingCommit(): void;
  failPublishing(ms: number): Promise<void>;
  /** Pauses the pausable queue for `ms`, then resumes it; resolves with what it did. */
  pauseQueue(ms: number): Promise<string>;
}

export type FaultCounts = Partial<Record<FaultKind, number>>;

/** Zero of every kind this soak injects. */
export function emptyFaultCounts(kinds: readonly FaultKind[]): FaultCounts {
  return Object.fromEntries(kinds.map((kind) => [kind, 0]));
}

/**
 * Injects one fault every `everyMs` until `until()` is false, cycling through the kinds of `counts` in a seeded order
 * so every kind comes up equally often. Logs each fault through `print`.
 */
export async function runFaults(
  random: SeededRandom,
  targets: FaultTargets,
  counts: FaultCounts,
  everyMs: number,
  until: () => boolean,
  print: (line: string) => void,
): Promise<void> {
  let order: FaultKind[] = [];
  while (until()) {
    await new Promise((resolve) => setTimeout(resolve, random.int(Math.round(everyMs * 0.5), Math.round(everyMs * 1.5))));
    if (!until()) break;
    if (order.length === 0) order = shuffle(random, Object.keys(counts) as FaultKind[]);
    const kind = order.pop()!;
    const started = Date.now();
    let detail: string | undefined = "";
    switch (kind) {
      case "kill-worker":
        detail = await targets.killWorker();
        break;
      case "kill-leading-cleaner":
        detail = await targets.killLeadingCleaner();
        break;
      case "cut-database":
      case "stall-database":
      case "hold-write-lock":
        detail = await targets.database(kind, random);
        break;
      case "cut-broker":
        targets.cutBroker();
        break;
      case "stall-broker": {
        const ms = random.int(300, 2000);
        detail = `${ms} ms`;
        await targets.stallBroker(ms);
        break;
      }
      case "duplicate-wakeups":
        detail = `${targets.duplicateWakeups(random.int(5, 30))} ids`;
        break;
      case "phantom-wakeups": {
        const count = random.int(1, 10);
        targets.phantomWakeups(count);
        detail = `${count} ids`;
        break;
      }
      case "early-wakeup":
        targets.requestEarlyWakeup();
        break;
      case "failing-commit":
        targets.requestFailingCommit();
        break;
      case "pause-queue":
        detail = await targets.pauseQueue(random.int(500, 3000));
        break;
      case "publish-failure": {
        const ms = random.int(300, 1500);
        detail = `${ms} ms`;
        await targets.failPublishing(ms);
        break;
      }
    }
    if (detail === undefined) {
      print(`fault ${kind} skipped: no process of that kind was ready`);
      order.push(kind); // it comes up again next
      continue;
    }
    counts[kind] = (counts[kind] ?? 0) + 1;
    print(`fault ${new Date(started).toISOString()} ${kind} ${detail} (${Date.now() - started} ms)`);
  }
}

function shuffle<T>(random: SeededRandom, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = random.int(0, i);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
