// What one task costs the database and the broker: WAL (redo) bytes, rows written, statements and transactions, and
// the CPU time of the database server, the broker node and the worker, per task. Each runs on servers of its own
// (a PostgreSQL cluster made by initdb, a MariaDB made by mariadb-install-db, a RabbitMQ node on port 5673), so
// nothing else touches them, and CPU time is read from /proc for their processes alone: a figure that holds on a busy
// machine, where a rate would not. `1000 / (server CPU ms per task)` is the rate at which one core of that server
// saturates.
//
// The load is the app's own: `--tasks` transactions, 8 at a time, each writing a business row and enqueueing one task
// (or `--batch` tasks), while one worker process (concurrency 10, default options) runs them. The same transactions
// without the enqueue are measured first, on the same database, and subtracted: what is left is the queue's cost.
// Usage: npx tsx bench/scaling-costs.ts [--tasks=5000] [--batch=1] [--only=ours,ours-notify,ours-mysql] [--delete-on-success]

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { openStore } from "../src/index.js";
import { OwnMariadbServer } from "../test/support/own-mariadb-server.js";
import { OwnPostgresServer } from "../test/support/own-postgres-server.js";
import { runMysqlScripts } from "../test/support/mysql-database.js";
import { buildChildren } from "./build-children.js";
import { WorkerProcesses } from "./child/worker-processes.js";
import { sleep } from "./clock.js";
import { ours, deleteTopology } from "./peers/ours.js";
import { oursMysql } from "./peers/ours-mysql.js";
import { oursNotify } from "./peers/ours-notify.js";
import type { Peer, Producer, RunTarget } from "./peers/peer.js";
import { processTreeCpuMs, type CpuMs } from "./process-cpu.js";
import { serverCounters, sessionsClosed, tableBytesPerRow, type Counters } from "./scaling-counters.js";

const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const TASKS = Number(arg("tasks", "5000"));
const BATCH = Number(arg("batch", "1"));
const ONLY = arg("only", "ours,ours-notify,ours-mysql").split(",");
const DELETE_ON_SUCCESS = process.argv.includes("--delete-on-success");
const LANES = 8;
const CLUSTER_SCRIPT = fileURLToPath(new URL("../scripts/rabbitmq-cluster.sh", import.meta.url));
const RABBIT_ENV = { ...process.env, PTQ_RABBITMQ_CLUSTER_DIR: "/tmp/ptq-scaling-costs-rabbitmq" };
const rabbit = (...args: string[]) => execFileSync("bash", [CLUSTER_SCRIPT, ...args], { env: RABBIT_ENV, encoding: "utf8" }).trim();

interface Sample {
  counters: Counters;
  serverCpuMs: number;
  /** Of serverCpuMs, the kernel's share (system time: WAL and redo flushes, sockets). */
  serverSystemMs: number;
  brokerCpuMs: number;
  appCpuMs: number;
}

const total = (cpu: CpuMs) => cpu.user + cpu.system;

/** Runs `count` app transactions, LANES at a time; each enqueues BATCH tasks when `enqueue`. */
async function transactions(producer: Producer, count: number, enqueue: boolean): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: LANES }, async () => {
      while (next < count) {
        const n = next++;
        if (!enqueue || BATCH === 1) await producer.transaction(n, enqueue);
        else await producer.bulkAdd(BATCH);
      }
    }),
  );
  await producer.flush();
}

async function measure(peer: Peer, target: RunTarget, serverPid: () => number, brokerPid: number | undefined) {
  const dialect = peer.database === "mysql" ? "mysql" : "postgresql";
  const sample = async (): Promise<Sample> => {
    const server = processTreeCpuMs(serverPid());
    const app = process.cpuUsage();
    return {
      counters: await serverCounters(dialect, target.databaseUrl),
      serverCpuMs: total(server),
      serverSystemMs: server.system,
      brokerCpuMs: brokerPid ? total(processTreeCpuMs(brokerPid)) : 0,
      appCpuMs: (app.user + app.system) / 1000,
    };
  };
  await peer.install(target);
  const transactionCount = Math.ceil(TASKS / BATCH);

  // The app's transactions alone.
  let producer = await peer.open(target);
  await transactions(producer, 200, false); // warm-up: connections, plans
  await producer.close();
  await sessionsClosed(dialect, target.databaseUrl);
  const baseStart = await sample();
  producer = await peer.open(target);
  // enqueueMany writes no business row: with --batch the queue's cost is all there is.
  await transactions(producer, BATCH === 1 ? transactionCount : 0, false);
  await producer.close();
  await sessionsClosed(dialect, target.databaseUrl); // a session's statistics reach the views when it ends
  const baseEnd = await sample();

  // The same transactions with the enqueue, a worker running them as they come.
  if (DELETE_ON_SUCCESS) process.env.BENCH_OURS_WORKER_OPTIONS = JSON.stringify({ deleteOnSuccess: true });
  const workers = await WorkerProcesses.spawn({ workerModule: peer.workerModule, target, concurrency: 10, record: false }, { processes: 1, timeoutMs: 600_000 });
  producer = await peer.open(target);
  await workers.start();
  const start = await sample();
  await transactions(producer, transactionCount, true);
  let polls = 0;
  while ((await producer.remaining()) > 0) {
    polls++;
    await sleep(100);
  }
  const [report] = await workers.stop();
  await producer.close();
  await sessionsClosed(dialect, target.databaseUrl);
  const end = await sample();
  const vacuum = dialect === "postgresql" ? await vacuumCost(target.databaseUrl, serverPid) : undefined;
  const table = await tableBytesPerRow(dialect, target.databaseUrl);
  const prune = await pruneCost(dialect, target.databaseUrl, serverPid);
  return {
    vacuum,
    prune,
    peer: peer.name,
    base: diff(baseStart, baseEnd),
    queue: diff(start, end),
    workerCpuMs: report!.cpuMs,
    polls,
    handled: report!.handled,
    table,
  };
}

/** What a plain VACUUM of the task table costs per dead row version the run left (PostgreSQL's autovacuum does the same). */
async function vacuumCost(url: string, serverPid: () => number) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const dead = Number((await client.query<{ n: string }>("SELECT n_dead_tup AS n FROM pg_stat_user_tables WHERE relname = 'tasks'")).rows[0]!.n);
    const before = total(processTreeCpuMs(serverPid()));
    await client.query("VACUUM tasks");
    return { dead, cpuMsPerDeadRow: (total(processTreeCpuMs(serverPid())) - before) / dead };
  } finally {
    await client.end();
  }
}

/** What the cleaner's prune costs per row: every finished task deleted, in its batches of 1,000. */
async function pruneCost(dialect: "postgresql" | "mysql", url: string, serverPid: () => number) {
  const store = openStore(url, { max: 1 });
  try {
    const before = { counters: await serverCounters(dialect, url), cpu: total(processTreeCpuMs(serverPid())) };
    let rows = 0;
    for (let ids = await store.prune({ retentionMs: 0, limit: 1000 }); ids.length > 0; ids = await store.prune({ retentionMs: 0, limit: 1000 })) rows += ids.length;
    await store.close();
    await sessionsClosed(dialect, url);
    const after = { counters: await serverCounters(dialect, url), cpu: total(processTreeCpuMs(serverPid())) };
    const walKey = dialect === "mysql" ? "redo log bytes" : "WAL bytes";
    return { rows, cpuMsPerRow: (after.cpu - before.cpu) / rows, walBytesPerRow: ((after.counters[walKey] ?? 0) - (before.counters[walKey] ?? 0)) / rows };
  } finally {
    await store.close().catch(() => {});
  }
}

function diff(a: Sample, b: Sample) {
  const counters: Counters = {};
  for (const key of new Set([...Object.keys(a.counters), ...Object.keys(b.counters)])) counters[key] = (b.counters[key] ?? 0) - (a.counters[key] ?? 0);
  return {
    counters,
    serverCpuMs: b.serverCpuMs - a.serverCpuMs,
    serverSystemMs: b.serverSystemMs - a.serverSystemMs,
    brokerCpuMs: b.brokerCpuMs - a.brokerCpuMs,
    appCpuMs: b.appCpuMs - a.appCpuMs,
  };
}

function report(result: Awaited<ReturnType<typeof measure>>): void {
  const per = (value: number) => value / TASKS;
  console.log(`\n## ${result.peer}: ${TASKS} tasks, ${BATCH} per transaction${DELETE_ON_SUCCESS ? ", deleteOnSuccess" : ""} (handled ${result.handled})`);
  const keys = [...new Set([...Object.keys(result.queue.counters), ...Object.keys(result.base.counters)])].sort();
  console.log("| counter | with the queue, per task | app transactions alone, per task | the queue's share, per task |\n| --- | ---: | ---: | ---: |");
  for (const key of keys) {
    const withQueue = per(result.queue.counters[key] ?? 0);
    const alone = per(result.base.counters[key] ?? 0);
    if (withQueue === 0 && alone === 0) continue;
    console.log(`| ${key} | ${withQueue.toFixed(2)} | ${alone.toFixed(2)} | ${(withQueue - alone).toFixed(2)} |`);
  }
  const serverShare = per(result.queue.serverCpuMs - result.base.serverCpuMs);
  console.log(`| database server CPU ms | ${per(result.queue.serverCpuMs).toFixed(3)} | ${per(result.base.serverCpuMs).toFixed(3)} | ${serverShare.toFixed(3)} |`);
  console.log(
    `|   of which in the kernel (flushes, sockets) | ${per(result.queue.serverSystemMs).toFixed(3)} | ${per(result.base.serverSystemMs).toFixed(3)} | ${per(result.queue.serverSystemMs - result.base.serverSystemMs).toFixed(3)} |`,
  );
  console.log(
    `| broker node CPU ms | ${per(result.queue.brokerCpuMs).toFixed(3)} | ${per(result.base.brokerCpuMs).toFixed(3)} | ${per(result.queue.brokerCpuMs - result.base.brokerCpuMs).toFixed(3)} |`,
  );
  console.log(
    `| app process CPU ms | ${per(result.queue.appCpuMs).toFixed(3)} | ${per(result.base.appCpuMs).toFixed(3)} | ${per(result.queue.appCpuMs - result.base.appCpuMs).toFixed(3)} |`,
  );
  console.log(`| worker process CPU ms | ${per(result.workerCpuMs).toFixed(3)} | | ${per(result.workerCpuMs).toFixed(3)} |`);
  console.log(
    `One core saturates at about: database server ${(1000 / per(result.queue.serverCpuMs)).toFixed(0)} tasks/s (the app's business rows included), ` +
      `${(1000 / serverShare).toFixed(0)} tasks/s (the queue's share alone); ` +
      (result.queue.brokerCpuMs > 0 ? `broker node ${(1000 / per(result.queue.brokerCpuMs)).toFixed(0)} tasks/s; ` : "") +
      `worker ${(1000 / per(result.workerCpuMs)).toFixed(0)} tasks/s. Harness polls while draining: ${result.polls}.`,
  );
  const { table } = result;
  if (table.rows > 0) {
    console.log(
      `Task table (data and indexes) per row of the ${table.rows} left: ${table.asLeft.toFixed(0)} bytes as the run left it, ${table.rewritten.toFixed(0)} bytes rewritten (live rows alone).`,
    );
  }
  const { vacuum } = result;
  if (vacuum && vacuum.dead > 0)
    console.log(`VACUUM of the task table: ${vacuum.dead} dead row versions, database server ${vacuum.cpuMsPerDeadRow.toFixed(4)} CPU ms per dead row version.`);
  const { prune } = result;
  if (prune.rows > 0) {
    console.log(
      `Pruning the ${prune.rows} finished tasks (batches of 1,000): database server ${prune.cpuMsPerRow.toFixed(3)} CPU ms and ${prune.walBytesPerRow.toFixed(0)} WAL/redo bytes per row.`,
    );
  }
}

const peers = [ours, oursNotify, oursMysql].filter((peer) => ONLY.includes(peer.name));
await buildChildren();
const postgres = peers.some((peer) => peer.database === "postgresql")
  ? await OwnPostgresServer.start(["shared_preload_libraries=pg_stat_statements", "pg_stat_statements.track=all", "shared_buffers=256MB", "max_connections=100"])
  : undefined;
const mariadb = peers.some((peer) => peer.database === "mysql") ? await OwnMariadbServer.start() : undefined;
const broker = peers.some((peer) => peer.broker);
if (broker) rabbit("start-node", "1");
const brokerUrl = "amqp://guest:guest@127.0.0.1:5673";
try {
  console.log(
    `# What one task costs (bench/scaling-costs.ts, ${new Date().toISOString()}, commit ${execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim()})`,
  );
  for (const peer of peers) {
    const name = `ptq_costs_${peer.name.replace(/-/g, "_")}`;
    let databaseUrl: string;
    let serverPid: () => number;
    if (peer.database === "mysql") {
      await runMysqlScripts(mariadb!.url(), undefined, [`CREATE DATABASE ${name}`]);
      databaseUrl = mariadb!.url(name);
      serverPid = () => Number(readFileSync(`${mariadb!.folder}/mariadbd.pid`, "utf8").trim());
    } else {
      const admin = new pg.Client({ connectionString: postgres!.url() });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      databaseUrl = postgres!.url(name);
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
      await client.end();
      serverPid = () => Number(readFileSync(`${postgres!.dataDir}/postmaster.pid`, "utf8").split("\n")[0]);
    }
    const target: RunTarget = { databaseUrl, amqpUrl: peer.broker ? brokerUrl : "", prefix: `costs-${peer.name}-${process.pid}` };
    const brokerPid = peer.broker ? Number(rabbit("pid", "1")) : undefined;
    try {
      report(await measure(peer, target, serverPid, brokerPid));
    } finally {
      if (peer.broker) await deleteTopology(target).catch(() => {});
    }
  }
} finally {
  await postgres?.close();
  await mariadb?.close();
  if (broker) rabbit("stop");
}
