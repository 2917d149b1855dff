// Where the time of the latency scenario goes, task by task: runs scenario 4 (one idle worker process of 10, one
// enqueue per transaction at 200/s for 10 s) for one of our peers with the library's trace points recorded in the app
// and in the worker, and prints, for all tasks and for the slow ones (above p95), how long each step took and what
// else was going on: GC in either process, the worker's other store writes, the size of the claim batch.
// Usage: npx tsx bench/trace-latency.ts [--peer=ours|ours-notify|ours-mysql] [--seconds=10] [--rate=200] [--json=file]

import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { resolveServices } from "../test/support/services.js";
import { buildChildren } from "./build-children.js";
import { Databases, type BenchDatabases } from "./databases.js";
import { MysqlDatabases } from "./mysql-databases.js";
import { ours } from "./peers/ours.js";
import { oursMysql } from "./peers/ours-mysql.js";
import { oursNotify } from "./peers/ours-notify.js";
import type { Peer } from "./peers/peer.js";
import { latency } from "./scenarios/latency.js";
import { percentile } from "./stats.js";
import { TraceRecorder, type ProcessTrace } from "./trace/recorder.js";

const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const peers: Record<string, Peer> = { ours, "ours-notify": oursNotify, "ours-mysql": oursMysql };
const peer = peers[arg("peer", "ours")];
if (!peer) throw new Error(`--peer=${arg("peer", "ours")}: use one of ${Object.keys(peers).join(", ")}`);

/** The steps of one task's way from commit to handler, in ms; undefined where the step did not happen (NOTIFY has no publish). */
interface TaskSteps {
  n: number;
  total: number;
  commitToSent?: number;
  sentToPublished?: number;
  publishedToReceived?: number;
  /** NOTIFY and polling: from the commit's return to the worker's receipt. */
  commitToReceived?: number;
  receivedToClaim?: number;
  claim?: number;
  claimToStart?: number;
  /** How many ids the claim statement carried. */
  claimBatch?: number;
  /** Claimed by polling (claimDue), not by a wake-up. */
  polled: boolean;
  /** GC pause overlapping the task's way, in the app and in the worker (ms of overlap). */
  appGcMs: number;
  workerGcMs: number;
  /** Other store writes of the worker (completions, lease writes) running while the claim ran. */
  writesDuringClaim: number;
}

await buildChildren();
const services = await resolveServices();
const databases: BenchDatabases = peer.database === "mysql" ? new MysqlDatabases() : new Databases(services.databaseUrl);
const traceDir = mkdtempSync(join(tmpdir(), "ptq-trace-"));
process.env.BENCH_TRACE_DIR = traceDir;
try {
  const template = await databases.template(`trace_${peer.name}`, (url) => peer.install({ databaseUrl: url, amqpUrl: "", prefix: "" }));
  const database = await databases.clone(template);
  const target = { databaseUrl: database.url, amqpUrl: peer.broker ? services.amqpUrl : "", prefix: `ptq_trace_${randomBytes(4).toString("hex")}` };
  const producer = await peer.open(target);
  const app = new TraceRecorder();
  let result;
  try {
    result = await latency(peer, producer, target, {
      rate: Number(arg("rate", "200")),
      seconds: Number(arg("seconds", "10")),
      timeoutMs: 120_000,
      keepTimes: true,
    });
  } finally {
    app.save(join(traceDir, "app.json"));
    await producer.close();
    await peer.cleanup?.(target);
  }
  const workerFile = readdirSync(traceDir).find((file) => file.startsWith("worker-"));
  if (!workerFile) throw new Error(`the worker child wrote no trace into ${traceDir}`);
  const worker = JSON.parse(readFileSync(join(traceDir, workerFile), "utf8")) as ProcessTrace;
  const steps = joinTrace(result.times!, app.trace, worker);
  if (process.argv.some((a) => a.startsWith("--json="))) writeFileSync(arg("json", ""), JSON.stringify({ peer: peer.name, result, steps }));
  report(peer.name, result, steps);
} finally {
  await databases.dropAll();
}

function joinTrace(times: Array<[number, number, number]>, app: ProcessTrace, worker: ProcessTrace): TaskSteps[] {
  const idOf = new Map(worker.starts.map(([n, id]) => [n, id]));
  const firstAt = (events: ProcessTrace["wakeups"], point: string) => {
    const at = new Map<string, number>();
    for (const [kind, time, ids] of events) if (kind === point) for (const id of ids) if (!at.has(id)) at.set(id, time);
    return at;
  };
  const sent = firstAt(app.wakeups, "sent");
  const published = firstAt(app.wakeups, "published");
  const received = firstAt(worker.wakeups, "received");
  const claimOf = new Map<string, ProcessTrace["operations"][number]>();
  for (const operation of worker.operations) {
    if (operation[0] !== "claimByIds" && operation[0] !== "claimDue") continue;
    for (const id of operation[3]) claimOf.set(id, operation); // the last claim that named the id is the one that took it
  }
  const writes = worker.operations.filter(([kind]) => kind === "complete" || kind === "fail" || kind === "extendLeases");
  const gcOverlap = (gc: ProcessTrace["gc"], from: number, to: number) =>
    gc.reduce((sum, [start, duration]) => sum + Math.max(0, Math.min(to, start + duration) - Math.max(from, start)), 0);
  return times.map(([n, commit, start]) => {
    const id = idOf.get(n)!;
    const claim = claimOf.get(id);
    const step: TaskSteps = {
      n,
      total: start - commit,
      polled: claim?.[0] === "claimDue",
      appGcMs: gcOverlap(app.gc, commit, start),
      workerGcMs: gcOverlap(worker.gc, commit, start),
      writesDuringClaim: claim ? writes.filter(([, from, to]) => from < claim[2] && to > claim[1]).length : 0,
    };
    const s = sent.get(id);
    const p = published.get(id);
    const r = received.get(id);
    if (s !== undefined) step.commitToSent = s - commit;
    if (s !== undefined && p !== undefined) step.sentToPublished = p - s;
    if (p !== undefined && r !== undefined) step.publishedToReceived = r - p;
    if (p === undefined && r !== undefined) step.commitToReceived = r - commit;
    if (claim) {
      if (r !== undefined && !step.polled) step.receivedToClaim = claim[1] - r;
      step.claim = claim[2] - claim[1];
      step.claimToStart = start - claim[2];
      step.claimBatch = claim[3].length;
    }
    return step;
  });
}

function report(name: string, result: { p50: number; p99: number; samples: number }, steps: TaskSteps[]): void {
  const p95 = percentile(
    steps.map((step) => step.total),
    95,
  );
  const slow = steps.filter((step) => step.total > p95);
  const keys: Array<[keyof TaskSteps, string]> = [
    ["total", "commit returned → handler start"],
    ["commitToSent", "commit returned → handed to the sender (app)"],
    ["sentToPublished", "sender → RabbitMQ publish (app: coalescing turn)"],
    ["publishedToReceived", "publish → worker received (broker hop)"],
    ["commitToReceived", "commit returned → worker received (NOTIFY)"],
    ["receivedToClaim", "received → claim statement sent (worker)"],
    ["claim", "claim statement"],
    ["claimToStart", "claim returned → handler start"],
    ["claimBatch", "ids per claim statement"],
    ["appGcMs", "GC in the app during the task's way (ms)"],
    ["workerGcMs", "GC in the worker during the task's way (ms)"],
    ["writesDuringClaim", "worker writes in flight during the claim"],
  ];
  const column = (rows: TaskSteps[], key: keyof TaskSteps, p: number) => {
    const values = rows.map((row) => row[key]).filter((value): value is number => typeof value === "number");
    return values.length === 0 ? "–" : percentile(values, p).toFixed(2);
  };
  const mean = (rows: TaskSteps[], key: keyof TaskSteps) => {
    const values = rows.map((row) => row[key]).filter((value): value is number => typeof value === "number");
    return values.length === 0 ? "–" : (values.reduce((a, b) => a + b, 0) / values.length).toFixed(2);
  };
  console.log(
    `\n${name}: ${result.samples} tasks, p50 ${result.p50.toFixed(2)} ms, p95 ${p95.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms; ${slow.length} slow tasks (above p95), ${steps.filter((s) => s.polled).length} claimed by polling\n`,
  );
  console.log("| step | all: p50 | all: p99 | slow: p50 | slow: mean | slow: max |");
  console.log("|---|--:|--:|--:|--:|--:|");
  for (const [key, label] of keys) {
    const slowValues = slow.map((row) => row[key]).filter((value): value is number => typeof value === "number");
    const max = slowValues.length === 0 ? "–" : Math.max(...slowValues).toFixed(2);
    console.log(`| ${label} | ${column(steps, key, 50)} | ${column(steps, key, 99)} | ${column(slow, key, 50)} | ${mean(slow, key)} | ${max} |`);
  }
  // What each slow task waited on most: the longest of its steps.
  const longest = new Map<string, number>();
  const stepKeys = keys.slice(1, 8);
  for (const row of slow) {
    let best: [string, number] = ["?", -Infinity];
    for (const [key, label] of stepKeys) {
      const value = row[key];
      if (typeof value === "number" && value > best[1]) best = [label, value];
    }
    longest.set(best[0], (longest.get(best[0]) ?? 0) + 1);
  }
  console.log(`\nThe longest step of each slow task:`);
  for (const [label, count] of [...longest].sort((a, b) => b[1] - a[1])) console.log(`- ${label}: ${count}`);
  const withGc = slow.filter((row) => row.appGcMs > 0 || row.workerGcMs > 0).length;
  const withWrites = slow.filter((row) => row.writesDuringClaim > 0).length;
  console.log(
    `- slow tasks with a GC pause on their way: ${withGc} of ${slow.length} (all tasks: ${steps.filter((r) => r.appGcMs > 0 || r.workerGcMs > 0).length} of ${steps.length})`,
  );
  console.log(
    `- slow tasks whose claim overlapped a completion or lease write: ${withWrites} of ${slow.length} (all tasks: ${steps.filter((r) => r.writesDuringClaim > 0).length} of ${steps.length})`,
  );
}
