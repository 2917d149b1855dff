// `npm run bench`: runs every scenario (enqueue, bulk, drain, latency) for prisma-task-queue, graphile-worker and
// pg-boss on the local PostgreSQL and RabbitMQ, and for prisma-task-queue on the other dialects (a SQLite file, the
// local MariaDB or MYSQL_URL), each run on a fresh database, then prints one markdown table and writes the JSON.
// Usage: tsx bench/main.ts [--quick] [--only=enqueue,bulk,drain,latency,lateness,controls,backlog,retention] [--peers=ours,graphile-worker,pg-boss,ours-sqlite,ours-mysql,ours-notify] [--repeats=3] [--profile]
// Delays on time alone: npm run bench -- --only=lateness --peers=ours,ours-notify,ours-sqlite,ours-mysql

import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { mysqlServerUrl } from "../test/support/mysql-database.js";
import { resolveServices } from "../test/support/services.js";
import { buildChildren } from "./build-children.js";
import { PEERS, readConfig, SCENARIOS, type PeerName } from "./config.js";
import { Databases, type BenchDatabase, type BenchDatabases } from "./databases.js";
import { describeMachine } from "./machine.js";
import { MysqlDatabases } from "./mysql-databases.js";
import { graphileWorker } from "./peers/graphile-worker.js";
import { ours } from "./peers/ours.js";
import { oursMysql } from "./peers/ours-mysql.js";
import { oursNotify } from "./peers/ours-notify.js";
import { oursSqlite } from "./peers/ours-sqlite.js";
import type { Peer, RunTarget } from "./peers/peer.js";
import { pgBoss } from "./peers/pg-boss.js";
import { clearProfiles, drainProfileTables } from "./profile-tables.js";
import { jsonReport, markdownTable } from "./report.js";
import type { Results } from "./results.js";
import { runs } from "./runs.js";
import { SqliteFiles } from "./sqlite-files.js";
import { judgeTargets } from "./targets.js";

const ALL_PEERS: Record<PeerName, Peer> = {
  ours,
  "graphile-worker": graphileWorker,
  "pg-boss": pgBoss,
  "ours-sqlite": oursSqlite,
  "ours-mysql": oursMysql,
  "ours-notify": oursNotify,
};

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

async function main(): Promise<void> {
  const startedAt = new Date();
  const config = readConfig();
  await buildChildren();
  if (config.profile) clearProfiles();
  const services = await resolveServices();
  const peers = config.peers.map((name) => ALL_PEERS[name]);
  const onMysql = peers.some((peer) => peer.database === "mysql");
  const machine = await describeMachine(services.databaseUrl, services.amqpUrl, onMysql ? await mysqlServerUrl() : undefined);
  log(`machine: ${JSON.stringify(machine)}`);
  const places: Record<Peer["database"], BenchDatabases> = {
    postgresql: new Databases(services.databaseUrl),
    sqlite: new SqliteFiles(),
    mysql: new MysqlDatabases(),
  };
  const dropAll = () => Promise.all(Object.values(places).map((place) => place.dropAll()));
  // Ctrl-C: drop what this run created (the worker children exit when the harness goes).
  process.once("SIGINT", () => void dropAll().finally(() => process.exit(130)));
  const results: Results = {};
  const failures: Array<{ run: string; peer: PeerName; error: string }> = [];
  const target = (peer: Peer, database: BenchDatabase): RunTarget => ({
    databaseUrl: database.url,
    amqpUrl: peer.broker ? services.amqpUrl : "",
    prefix: `ptq_benchrun_${randomBytes(4).toString("hex")}`,
  });
  try {
    const templates = new Map<PeerName, BenchDatabase>();
    for (const peer of peers) {
      templates.set(peer.name, await places[peer.database].template(peer.name, (url) => peer.install(target(peer, { name: "", url }))));
    }
    for (const run of runs(config)) {
      for (const peer of peers) {
        if (run.applies && !run.applies(peer)) continue;
        const databases = places[peer.database];
        const database = await databases.clone(templates.get(peer.name)!);
        const where = target(peer, database);
        const producer = await peer.open(where);
        try {
          const summary = await run.measure(peer, producer, where, (results[peer.name] ??= {}));
          log(`${run.name} · ${peer.name}: ${summary}`);
        } catch (error) {
          // One failed measurement (a busy machine timing out, say) must not cost the rest of the table.
          failures.push({ run: run.name, peer: peer.name, error: (error as Error).message });
          log(`${run.name} · ${peer.name}: FAILED: ${(error as Error).stack ?? String(error)}`);
        } finally {
          await producer.close();
          await peer.cleanup(where);
          await databases.drop(database);
        }
      }
    }
  } finally {
    await dropAll();
    await services.stop();
  }
  const verdicts = judgeTargets(results);
  const table = markdownTable(results, verdicts);
  process.stdout.write(`${table}\n`);
  const durationS = (Date.now() - startedAt.getTime()) / 1000;
  const full = !config.quick && config.only.length === SCENARIOS.length && config.peers.length === PEERS.length;
  const file = fileURLToPath(new URL(`./results/${config.quick ? "quick" : full ? "latest" : "partial"}.json`, import.meta.url));
  mkdirSync(fileURLToPath(new URL("./results", import.meta.url)), { recursive: true });
  const settings = Object.fromEntries(peers.map((peer) => [peer.name, peer.settings]));
  const machineAtEnd = { ...machine, loadAverageAtEnd: loadavg().map((l) => Math.round(l * 100) / 100) };
  const report = jsonReport({ machine: machineAtEnd, config: { ...config }, settings, results, verdicts, failures, startedAt, durationS });
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  log(`wrote ${file} after ${durationS.toFixed(0)} s`);
  const profiles = config.profile ? drainProfileTables(config.peers) : "";
  if (profiles) {
    const tables = fileURLToPath(new URL("./results/profile-tables.md", import.meta.url));
    writeFileSync(tables, `${profiles}\n`);
    process.stdout.write(`\n${profiles}\n`);
    log(`wrote ${tables}`);
  }
  if (failures.length > 0) throw new Error(`${failures.length} measurement(s) failed: ${failures.map((f) => `${f.run} · ${f.peer}`).join(", ")}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`[bench] failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
