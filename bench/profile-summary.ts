// Summarises V8 .cpuprofile files (from `--profile`, whose worker children profile their run's window): where the
// process spent its time, by function (self time) and by package/file, so tuning starts from evidence.
// Usage: tsx bench/profile-summary.ts bench/results/profiles/ours-drain-1x10-0 [more files or dirs] [--top=25] [--under=name]
// A directory stands for the largest profile in it (a file written by `node --cpu-prof`, or a child's own).
// --under=name counts only the samples taken inside a function of that name (its callees included), to compare two
// code paths of one process (bench/telemetry-floor.ts: --under=ours against --under=floor).

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Where a file lives: a package under node_modules, a project file, or a Node/V8 internal. */
function owner(url: string): string {
  if (!url) return "(v8/native)";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith("node:")) return "node:internal";
  const path = url.replace(/^file:\/\//, "");
  if (!path.startsWith(root)) return url;
  return path.slice(root.length).replace(/^bench\/\.build\//, ""); // compiled children: name the source file
}

/** The ids of the nodes inside a call of a function named `name` (that call's node and every node below it). */
function nodesUnder(profile: CpuProfile, name: string): Set<number> {
  const inside = new Set<number>();
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const mark = (id: number) => {
    inside.add(id);
    for (const child of byId.get(id)?.children ?? []) mark(child);
  };
  for (const node of profile.nodes) if (node.callFrame.functionName === name && !inside.has(node.id)) mark(node.id);
  return inside;
}

export function summarise(profile: CpuProfile, top = 25, under?: string): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  const inside = under === undefined ? undefined : nodesUnder(profile, under);
  profile.samples.forEach((id, index) => {
    if (inside && !inside.has(id)) return;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  const totalUs = profile.endTime - profile.startTime;
  const byFunction = new Map<string, number>();
  const byOwner = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    const fn = `${frame.functionName || "(anonymous)"} ${owner(frame.url)}:${frame.lineNumber + 1}`;
    const key = frame.url ? fn : frame.functionName || "(anonymous)";
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
    const who = frame.url ? owner(frame.url) : `(${frame.functionName})`;
    byOwner.set(who, (byOwner.get(who) ?? 0) + us);
  }
  const idle = (byFunction.get("(idle)") ?? 0) + (byFunction.get("(program)") ?? 0) * 0;
  const busy = totalUs - (byFunction.get("(idle)") ?? 0);
  const line = (label: string, us: number) => `${(us / 1000).toFixed(0).padStart(8)} ms ${((us / totalUs) * 100).toFixed(1).padStart(5)} %  ${label}`;
  const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]).slice(0, top);
  const within = [...selfUs.values()].reduce((sum, us) => sum + us, 0);
  return [
    `profile: ${(totalUs / 1000).toFixed(0)} ms, busy ${(busy / 1000).toFixed(0)} ms (${((busy / totalUs) * 100).toFixed(1)} %), idle ${(idle / 1000).toFixed(0)} ms`,
    ...(under === undefined ? [] : [`inside ${under}(): ${(within / 1000).toFixed(0)} ms`]),
    "",
    "self time by package / file:",
    ...sorted(byOwner).map(([label, us]) => line(label, us)),
    "",
    "self time by function:",
    ...sorted(byFunction).map(([label, us]) => line(label, us)),
  ].join("\n");
}

const files = process.argv.slice(2).filter((arg) => !arg.startsWith("--"));
const top = Number(process.argv.find((arg) => arg.startsWith("--top="))?.slice(6) ?? 25);
const under = process.argv.find((arg) => arg.startsWith("--under="))?.slice(8);
if (files.length === 0) {
  process.stderr.write("usage: tsx bench/profile-summary.ts <file.cpuprofile>... [--top=25] [--under=name]\n");
  process.exit(2);
}
/** A file, or the largest .cpuprofile of a directory. */
function profileFile(path: string): string {
  if (!statSync(path).isDirectory()) return path;
  const candidates = readdirSync(path)
    .filter((name) => name.endsWith(".cpuprofile"))
    .map((name) => join(path, name))
    .sort((a, b) => statSync(b).size - statSync(a).size);
  if (!candidates[0]) throw new Error(`no .cpuprofile in ${path}`);
  return candidates[0];
}

for (const file of files.map(profileFile)) {
  process.stdout.write(`== ${file}\n${summarise(JSON.parse(readFileSync(file, "utf8")) as CpuProfile, top, under)}\n\n`);
}
