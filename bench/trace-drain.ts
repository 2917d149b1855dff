// Drains tasks with one in-process worker of ours and prints where its store operations went: how many of each kind,
// how many rows each carried, how long they took, and how long start() took. For tuning the worker, not for the table.
// Usage: npx tsx bench/trace-drain.ts [--peer=ours|ours-sqlite|ours-mysql] [--count=20000] [--concurrency=10] [--options='{"claimAhead":100}'] [--allocations]
// --allocations samples every allocation during the drain (collected ones included) and prints the largest sites.

import { Session } from "node:inspector/promises";
import { execSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { openStore, silentLogger } from "../src/index.js";
import { createWorker, type WorkerOptions } from "../src/worker/create-worker.js";
import { Databases, type BenchDatabases } from "./databases.js";
import { MysqlDatabases } from "./mysql-databases.js";
import { ours } from "./peers/ours.js";
import { oursMysql } from "./peers/ours-mysql.js";
import { oursSqlite } from "./peers/ours-sqlite.js";
import type { Peer } from "./peers/peer.js";
import { SqliteFiles } from "./sqlite-files.js";
import { benchTasks } from "./peers/ours-tasks.js";
import { sleep } from "./clock.js";
import { resolveServices } from "../test/support/services.js";
import { timedStore } from "./trace/timed-store.js";

const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const count = Number(arg("count", "20000"));
const concurrency = Number(arg("concurrency", "10"));
const extra = JSON.parse(arg("options", "{}")) as Partial<WorkerOptions>;

interface Kind {
  calls: number;
  rows: number;
  ms: number;
}

const peers: Record<string, Peer> = { ours, "ours-sqlite": oursSqlite, "ours-mysql": oursMysql };
const peer = peers[arg("peer", "ours")];
if (!peer) throw new Error(`--peer=${arg("peer", "ours")}: use one of ${Object.keys(peers).join(", ")}`);
const services = await resolveServices();
const databases: BenchDatabases = peer.database === "sqlite" ? new SqliteFiles() : peer.database === "mysql" ? new MysqlDatabases() : new Databases(services.databaseUrl);
/** The database server's processes (by command line) and its name, for the CPU line; SQLite has none. */
const server = { postgresql: { name: "PostgreSQL", pattern: "postgres" }, mysql: { name: "MySQL", pattern: "mariadbd|mysqld" }, sqlite: undefined }[peer.database];
const template = await databases.template("trace", (url) => peer.install({ databaseUrl: url, amqpUrl: "", prefix: "" }));
const database = await databases.clone(template);
const target = { databaseUrl: database.url, amqpUrl: peer.broker ? services.amqpUrl : "", prefix: `ptq_trace_${process.pid}` };
const producer = await peer.open(target);
const pool = openStore(target.databaseUrl, { max: 6 });
if (process.argv.includes("--async-commit") && databases instanceof Databases) await databases.setting(database, "synchronous_commit", "off");
const kinds = new Map<string, Kind>();
/** The worker's operations on the store, timed, with the rows they returned. */
const store = timedStore(pool, (operation, began, ended, _args, result) => {
  const kind = kinds.get(operation) ?? { calls: 0, rows: 0, ms: 0 };
  kind.calls += 1;
  kind.rows += Array.isArray(result) ? result.length : 0;
  kind.ms += ended - began;
  kinds.set(operation, kind);
});
try {
  await producer.seed(count);
  let handled = 0;
  const worker = createWorker({
    tasks: benchTasks(() => void (handled += 1)),
    store,
    amqpUrl: target.amqpUrl,
    amqpPrefix: target.prefix,
    concurrency,
    logger: silentLogger,
    ...extra,
  });
  const session = process.argv.includes("--allocations") ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post("HeapProfiler.startSampling", {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    } as object);
  }
  const serverBefore = server ? cpuTicks(server.pattern) : 0;
  const rabbitBefore = cpuTicks("beam.smp");
  const nodeBefore = process.cpuUsage();
  const t0 = performance.now();
  await worker.start();
  const started = performance.now() - t0;
  while ((await producer.remaining()) > 0) await sleep(5);
  const total = performance.now() - t0;
  const nodeCpu = process.cpuUsage(nodeBefore);
  console.log(
    `CPU during the drain: this process ${((nodeCpu.user + nodeCpu.system) / 1000).toFixed(0)} ms, ` +
      `${server ? `${server.name} ${(cpuTicks(server.pattern) - serverBefore) * 10} ms, ` : ""}RabbitMQ ${(cpuTicks("beam.smp") - rabbitBefore) * 10} ms`,
  );
  if (session) {
    const { profile } = (await session.post("HeapProfiler.stopSampling")) as { profile: { head: AllocationNode } };
    session.disconnect();
    printAllocations(profile.head, count);
  }
  await worker.stop();
  console.log(`start() ${started.toFixed(0)} ms; drained ${count} (handled ${handled}) in ${total.toFixed(0)} ms: ${Math.round((count / total) * 1000)} tasks/s`);
  for (const [kind, k] of [...kinds].sort((a, b) => b[1].ms - a[1].ms)) {
    console.log(
      `${String(k.calls).padStart(6)} × ${kind.padEnd(52)} rows/call ${(k.rows / k.calls).toFixed(1).padStart(6)}  ms/call ${(k.ms / k.calls).toFixed(2).padStart(7)}  total ${k.ms.toFixed(0)} ms`,
    );
  }
} finally {
  await producer.close();
  await pool.close();
  await peer.cleanup(target);
  await databases.dropAll();
  await services.stop();
}

interface AllocationNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: AllocationNode[];
}

/** The largest allocation sites (function and its caller), in bytes per task. */
function printAllocations(head: AllocationNode, tasks: number): void {
  const sites = new Map<string, number>();
  let total = 0;
  const name = (node: AllocationNode) =>
    `${node.callFrame.functionName || "(anonymous)"} ${node.callFrame.url.replace(/^.*\/(node_modules\/)?/, "")}:${node.callFrame.lineNumber + 1}`;
  const walk = (node: AllocationNode, caller: string) => {
    const here = name(node);
    if (node.selfSize > 0) {
      total += node.selfSize;
      const site = `${here} < ${caller}`;
      sites.set(site, (sites.get(site) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, here);
  };
  walk(head, "");
  console.log(`allocated during the drain: ${(total / 1e6).toFixed(1)} MB, ${Math.round(total / tasks)} bytes per task`);
  for (const [site, bytes] of [...sites].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
    console.log(`${String(Math.round(bytes / tasks)).padStart(6)} B/task  ${site}`);
  }
}

/** CPU time (user + system, in clock ticks of 10 ms) of every process whose command line matches `pattern` (pgrep -f). */
function cpuTicks(pattern: string): number {
  const out = execSync(`for p in $(pgrep -f '${pattern}'); do cat /proc/$p/stat 2>/dev/null; echo; done`, { encoding: "utf8" });
  let ticks = 0;
  for (const line of out.split("\n")) {
    const fields = line.slice(line.lastIndexOf(")") + 2).split(" ");
    if (fields.length > 13) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks;
}
