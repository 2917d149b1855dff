// How late a schedule's slot starts: two processes that each run a worker and a cleaner (cleaner interval 500 ms), a
// schedule of one slot a second, woken through RabbitMQ; the process that leads is SIGKILLed (and started again) once
// a third of the way through and the other once two thirds of the way. Per slot: its first run's start minus the slot.
// Run: npx tsx bench/schedule-lateness.ts [--dialect=postgresql|sqlite|mysql] [--seconds=60] [--ahead=5000,0]

import { spawn, type ChildProcess } from "node:child_process";
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { dialectDatabase } from "./dialect-database.js";
import { percentile, round } from "./stats.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
const dialect = arg("dialect") ?? "postgresql";
const seconds = Number(arg("seconds") ?? 60);
const aheads = (arg("ahead") ?? "5000,0").split(",").map(Number);
const amqpUrl = process.env.AMQP_URL ?? "amqp://guest:guest@127.0.0.1:5672";

interface Run {
  slot: number;
  at: number;
}

function node(env: Record<string, string>, runs: Run[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "bench/child/schedule-node.ts"], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve) => {
    createInterface({ input: child.stdout }).on("line", (line) => {
      const parsed = JSON.parse(line) as { ready?: boolean; slot?: number; at?: number; attempt?: number };
      if (parsed.ready) resolve(child);
      else if (parsed.attempt === 1) runs.push({ slot: parsed.slot!, at: parsed.at! });
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
console.log(`schedule lateness on ${dialect}, commit ${commit}, ${new Date().toISOString()}, ${seconds} s per setting, slots of 1 s, two processes, leader SIGKILLs`);
console.log("scheduleAheadMs  slots  missing  p50 ms  p99 ms  max ms  | slots within 3 s after a kill: count  max ms  | others: p99 ms  max ms");
for (const ahead of aheads) {
  const db = await dialectDatabase(dialect, "ptq_schedbench");
  const runs: Run[] = [];
  const env = {
    DATABASE_URL: db.url,
    AMQP_URL: amqpUrl,
    PTQ_PREFIX: `sched${randomBytes(3).toString("hex")}`,
    SCHEDULE_AHEAD_MS: String(ahead),
    CLEANER_INTERVAL_MS: "500",
  };
  const nodes = [await node(env, runs), await node(env, runs)];
  const started = Date.now();
  const kills: number[] = [];
  for (const [i, at] of [seconds / 3, (2 * seconds) / 3].entries()) {
    await sleep(started + at * 1000 - Date.now());
    kills.push(Date.now());
    nodes[i]!.kill("SIGKILL");
    nodes[i] = await node(env, runs);
  }
  await sleep(started + seconds * 1000 - Date.now());
  for (const child of nodes) child.kill("SIGTERM");
  await Promise.all(nodes.map((child) => new Promise((resolve) => child.once("exit", resolve))));
  const from = started + 8000; // the first sweeps declare the schedule
  const to = started + seconds * 1000 - 3000;
  const bySlot = new Map<number, number>();
  for (const run of runs) if (run.slot >= from && run.slot <= to) bySlot.set(run.slot, Math.min(bySlot.get(run.slot) ?? Infinity, run.at - run.slot));
  const expected = Math.floor(to / 1000) - Math.ceil(from / 1000) + 1;
  const late = [...bySlot.values()];
  const afterKill = (slot: number) => kills.some((kill) => slot >= kill && slot < kill + 3000);
  const nearKills = [...bySlot].filter(([slot]) => afterKill(slot)).map(([, ms]) => ms);
  const others = [...bySlot].filter(([slot]) => !afterKill(slot)).map(([, ms]) => ms);
  console.log(
    [
      String(ahead).padEnd(15),
      bySlot.size,
      expected - bySlot.size,
      round(percentile(late, 50), 1),
      round(percentile(late, 99), 1),
      round(Math.max(...late), 1),
      "|",
      nearKills.length,
      round(Math.max(...nearKills), 1),
      "|",
      round(percentile(others, 99), 1),
      round(Math.max(...others), 1),
    ]
      .map((cell) => String(cell).padStart(6))
      .join("  "),
  );
  await db.drop();
}
process.exit(0);
