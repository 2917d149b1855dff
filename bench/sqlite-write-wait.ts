// How long a handler's own write waits on SQLite while the queue works beside it: the app-load scenario of the SQLite
// tests (a worker and a cleaner in the app's process, two worker processes, 200 concurrent transactions with rollbacks,
// handlers writing through a client of their own), per wake-up transport, several rounds each.
// Run: npx tsx bench/sqlite-write-wait.ts [--rounds=3] [--amqp=amqp://guest:guest@127.0.0.1:5672]

import { execFileSync } from "node:child_process";
import { runAppLoad, type AppLoadWakeups } from "../test/support/sqlite-app-load.js";
import { percentile, round } from "./stats.js";

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
const rounds = Number(arg("rounds") ?? 3);
const amqpUrl = arg("amqp") ?? process.env.AMQP_URL ?? "amqp://guest:guest@127.0.0.1:5672";
const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
const dirty = execFileSync("git", ["status", "--porcelain", "src"], { encoding: "utf8" }).trim() !== "";
console.log(`SQLite handler write wait, commit ${commit}${dirty ? " (uncommitted changes in src)" : ""}, ${new Date().toISOString()}, ${rounds} rounds per transport`);
console.log("wake-ups    writes  failed  retried  unfinished  p50 ms  p99 ms  max ms  all done in (median) ms");
for (const wakeups of ["rabbitmq", "sockets", "in-process"] as AppLoadWakeups[]) {
  const waits: number[] = [];
  const elapsed: number[] = [];
  let failed = 0;
  let retried = 0;
  let unfinished = 0;
  for (let i = 0; i < rounds; i++) {
    const result = await runAppLoad({ wakeups, amqpUrl, waitMs: 90_000 });
    waits.push(...result.writes.map((write) => write.ms));
    failed += result.writes.filter((write) => write.error !== undefined).length;
    retried += result.retried;
    unfinished += result.unfinished;
    elapsed.push(result.elapsedMs);
  }
  const cells = [
    wakeups.padEnd(10),
    waits.length,
    failed,
    retried,
    unfinished,
    round(percentile(waits, 50), 2),
    round(percentile(waits, 99), 2),
    round(Math.max(...waits), 2),
    Math.round(percentile(elapsed, 50)),
  ];
  console.log(cells.map((cell) => String(cell).padStart(7)).join(" "));
}
process.exit(0);
