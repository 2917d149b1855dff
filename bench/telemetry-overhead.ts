// What OpenTelemetry costs a drain: the same seeded tasks drained by one in-process worker with an OpenTelemetry SDK
// registered (every span and metric recorded, then handed to exporters that drop them) and without one (the API's
// no-op providers), alternating the two modes in one process, a fresh database per drain. It reports the drain's rate
// and this process's CPU time per task (user + system), which a machine busy with other work disturbs less.
// Usage: npx tsx bench/telemetry-overhead.ts [--peer=ours|ours-sqlite|ours-mysql] [--count=5000] [--rounds=3] [--concurrency=10]

import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { silentLogger } from "../src/index.js";
import { createWorker } from "../src/worker/create-worker.js";
import { resolveServices } from "../test/support/services.js";
import { sleep } from "./clock.js";
import { Databases, type BenchDatabases } from "./databases.js";
import { MysqlDatabases } from "./mysql-databases.js";
import { registerSdk } from "./otel-sdk.js";
import { ours } from "./peers/ours.js";
import { oursMysql } from "./peers/ours-mysql.js";
import { benchTasks } from "./peers/ours-tasks.js";
import { oursSqlite } from "./peers/ours-sqlite.js";
import type { Peer } from "./peers/peer.js";
import { SqliteFiles } from "./sqlite-files.js";

const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const count = Number(arg("count", "5000"));
const rounds = Number(arg("rounds", "3"));
const concurrency = Number(arg("concurrency", "10"));
const peers: Record<string, Peer> = { ours, "ours-sqlite": oursSqlite, "ours-mysql": oursMysql };
const chosen = peers[arg("peer", "ours")];
if (!chosen) throw new Error(`--peer=${arg("peer", "ours")}: use one of ${Object.keys(peers).join(", ")}`);
const peer: Peer = chosen;

const services = await resolveServices();
const databases: BenchDatabases = peer.database === "sqlite" ? new SqliteFiles() : peer.database === "mysql" ? new MysqlDatabases() : new Databases(services.databaseUrl);
const template = await databases.template("otel", (url) => peer.install({ databaseUrl: url, amqpUrl: "", prefix: "" }));
type Mode = "off" | "context" | "on";
const MODES: readonly Mode[] = ["off", "context", "on"];
const LABEL: Record<Mode, string> = { off: "SDK off     ", context: "context only", on: "SDK on      " };
const results: Record<Mode, number[]> = { off: [], context: [], on: [] };
const cpu: Record<Mode, number[]> = { off: [], context: [], on: [] };
const loads: number[] = [];

async function drain(mode: Mode): Promise<{ rate: number; cpuUsPerTask: number }> {
  const database = await databases.clone(template);
  const target = { databaseUrl: database.url, amqpUrl: peer.broker ? services.amqpUrl : "", prefix: `ptq_otel_${process.pid}_${mode}` };
  const unregister = mode === "off" ? undefined : registerSdk(mode);
  const producer = await peer.open(target);
  try {
    // Seeded under the same mode: with the SDK on, every task carries a trace context and each run links to it.
    await producer.seed(count);
    const worker = createWorker({
      tasks: benchTasks(() => {}),
      databaseUrl: target.databaseUrl,
      amqpUrl: target.amqpUrl,
      amqpPrefix: target.prefix,
      concurrency,
      logger: silentLogger,
    });
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    await worker.start();
    while ((await producer.remaining()) > 0) await sleep(5);
    const ms = performance.now() - t0;
    const used = process.cpuUsage(cpu0);
    await worker.stop();
    return { rate: (count / ms) * 1000, cpuUsPerTask: (used.user + used.system) / count };
  } finally {
    await producer.close();
    await unregister?.();
    await peer.cleanup(target);
    await databases.drop(database);
  }
}

try {
  for (let round = 1; round <= rounds; round++) {
    // The order turns every round, so no mode always runs first (warming the JIT) or last.
    for (const mode of MODES.map((_, i) => MODES[(i + round - 1) % MODES.length]!)) {
      loads.push(loadavg()[0]!);
      const { rate, cpuUsPerTask } = await drain(mode);
      results[mode].push(rate);
      cpu[mode].push(cpuUsPerTask);
      console.log(`round ${round} ${LABEL[mode]}: ${Math.round(rate)} tasks/s, ${Math.round(cpuUsPerTask)} µs CPU/task (load ${loadavg()[0]!.toFixed(2)})`);
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const off = median(results.off);
  const shown = MODES.map((mode) => {
    const rate = median(results[mode]);
    const change = mode === "off" ? "" : ` (${(((rate - off) / off) * 100).toFixed(1)}%)`;
    return `${mode} ${Math.round(rate)} tasks/s${change}, ${Math.round(median(cpu[mode]))} µs CPU/task`;
  });
  console.log(
    `${peer.name}, ${count} tasks, concurrency ${concurrency}, ${rounds} rounds, medians: ${shown.join("; ")}; 1-min load ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)}`,
  );
} finally {
  await databases.dropAll();
  await services.stop();
}
