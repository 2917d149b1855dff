// Prints the table and the targets of a saved run (the JSON `npm run bench` writes) judged by this checkout's
// targets, so that runs taken before a target changed are read against the current ones.
// Usage: npx tsx bench/table.ts bench/results/latest.json [more files]

import { readFileSync } from "node:fs";
import { markdownTable } from "./report.js";
import type { Results } from "./results.js";
import { judgeTargets } from "./targets.js";

const files = process.argv.slice(2);
if (files.length === 0) throw new Error("usage: npx tsx bench/table.ts <a run's JSON> [more]");
for (const file of files) {
  const run = JSON.parse(readFileSync(file, "utf8")) as { startedAt: string; raw: Results };
  process.stdout.write(`## ${file} (started ${run.startedAt})\n\n${markdownTable(run.raw, judgeTargets(run.raw))}\n\n`);
}
