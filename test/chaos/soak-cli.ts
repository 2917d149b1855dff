// `npm run soak -- --minutes 10 [--seed N] [--workers 3] [--tps 15] [--dialect postgresql|sqlite|mysql|mariadb] [--wakeups notify]
// [--wakeups local] [--pgbouncer] [--rabbitmq-cluster] [--hosts] [--serverless]`:
// the long soak on the local services, in its own database (PostgreSQL: a fresh database on the server; SQLite: a
// fresh file; MySQL: a fresh database on MYSQL_URL, else the local MariaDB; all with the local RabbitMQ, or on
// PostgreSQL with --wakeups notify, LISTEN/NOTIFY wake-ups and no broker; SQLite with --wakeups local, its workers woken
// through their local sockets and no broker; with --pgbouncer, through a PgBouncer in
// transaction mode that the soak starts; with --rabbitmq-cluster, the three-node cluster of scripts/rabbitmq-cluster.sh,
// started when not running, with quorum queues and node faults; with --hosts, on PostgreSQL or MySQL/MariaDB, the
// hosts of scripts/hosts.sh, brought up when not running: the servers of ptq-db, workers on ptq-w1 and ptq-w2 (one
// host's clock skewed), the app on ptq-app, and a worker host cut off and restored; with --serverless, no worker and no
// cleaner process: serving processes whose only runner is the cron route's pass, killed as invocations are cut off). Prints the fault log, the summary table
// and any violation, writes them to .artifacts/soak-<dialect>-latest.md; exits 1 when an invariant broke or the soak did
// less than its length asks for.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { onServer, databaseUrlFor } from "../support/database.js";
import { mysqlBusinessSql, mysqlMigrationSql, mysqlServerUrl, runMysqlScripts } from "../support/mysql-database.js";
import { applySchema } from "../support/schema.js";
import { resolveServices } from "../support/services.js";
import { applySqliteSchema } from "../support/sqlite.js";
import { mysqlSoakUrl } from "./soak-database.js";
import { runSoak } from "./soak.js";
import { startCluster } from "../support/rabbitmq-cluster.js";
import { hostsUp } from "../support/hosts.js";

const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "10" },
    seed: { type: "string" },
    workers: { type: "string", default: "3" },
    // Transactions the driver starts per second at most (about 2.7 tasks each): lower it to run several soaks at once.
    tps: { type: "string", default: "15" },
    dialect: { type: "string", default: "postgresql" },
    wakeups: { type: "string" },
    pgbouncer: { type: "boolean", default: false },
    "rabbitmq-cluster": { type: "boolean", default: false },
    hosts: { type: "boolean", default: false },
    serverless: { type: "boolean", default: false },
  },
});
if (values.hosts && values.dialect === "sqlite") {
  throw new Error("--hosts: SQLite is a file on one host; use --dialect postgresql or --dialect mysql (MariaDB) for workers on other hosts");
}
if (values.hosts && (values.pgbouncer || values["rabbitmq-cluster"]))
  throw new Error("--hosts: leave out --pgbouncer and --rabbitmq-cluster (ptq-db runs one of each server)");
if (values.pgbouncer && values.dialect !== "postgresql") throw new Error("--pgbouncer: PostgreSQL only (--dialect postgresql)");
const brokerless = { notify: "postgresql", local: "sqlite" } as Record<string, string | undefined>;
if (values.wakeups !== undefined && brokerless[values.wakeups] !== values.dialect) {
  throw new Error(`--wakeups ${values.wakeups}: "notify" on --dialect postgresql, "local" on --dialect sqlite (RabbitMQ is the default)`);
}
if (values.wakeups !== undefined && values["rabbitmq-cluster"]) throw new Error("--rabbitmq-cluster wakes through RabbitMQ: leave --wakeups out");
if (values.serverless && (values.wakeups !== undefined || values["rabbitmq-cluster"] || values.hosts || values.pgbouncer)) {
  throw new Error("--serverless: no wake-ups at all (cron passes only); leave out --wakeups, --rabbitmq-cluster, --hosts and --pgbouncer");
}
const variant = `${values.dialect}${values.wakeups ? `-${values.wakeups}` : ""}${values.pgbouncer ? "-pgbouncer" : ""}${values["rabbitmq-cluster"] ? "-rabbitmq-cluster" : ""}${values.hosts ? "-hosts" : ""}${values.serverless ? "-serverless" : ""}`;
const seed = values.seed ? Number(values.seed) : Date.now() % 1_000_000;
const dialects: Record<string, () => Promise<{ url: string; drop: () => Promise<void> }>> = {
  async postgresql() {
    const name = `ptq_soak_${seed}`;
    await onServer(services.databaseUrl, [`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`, `CREATE DATABASE "${name}"`]);
    const url = databaseUrlFor(services.databaseUrl, name);
    await applySchema(url);
    return { url, drop: () => onServer(services.databaseUrl, [`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`]) };
  },
  async sqlite() {
    const dir = mkdtempSync(join(tmpdir(), "ptq-soak-sqlite-"));
    applySqliteSchema(join(dir, "soak.db"));
    return { url: `file:${join(dir, "soak.db")}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  },
  async mysql() {
    const name = `ptq_soak_${seed}`;
    const server = hostServers?.mysqlUrl ?? (await mysqlServerUrl());
    await runMysqlScripts(server, undefined, [`DROP DATABASE IF EXISTS \`${name}\``, `CREATE DATABASE \`${name}\``]);
    await runMysqlScripts(server, name, [...mysqlMigrationSql(), mysqlBusinessSql()]);
    return { url: mysqlSoakUrl(server, name), drop: () => runMysqlScripts(server, undefined, [`DROP DATABASE IF EXISTS \`${name}\``]) };
  },
};
// MariaDB is served by the mysql dialect; `--dialect mariadb` names the server this machine runs.
if (values.dialect === "mariadb") values.dialect = "mysql";
const create = dialects[values.dialect];
if (!create) throw new Error(`--dialect ${values.dialect}: use one of ${Object.keys(dialects).join(", ")}`);
const hostServers = values.hosts ? await hostsUp() : undefined;
const services = hostServers ? { databaseUrl: hostServers.postgresUrl, amqpUrl: hostServers.amqpUrl, stop: async () => {} } : await resolveServices();
const clusterUrl = values["rabbitmq-cluster"] ? await startCluster() : undefined;
const database = await create();
const databaseUrl = database.url;
const started = Date.now();
const minutes = Number(values.minutes);
const tps = Number(values.tps);
if (!Number.isFinite(tps) || tps <= 0) throw new Error(`--tps ${values.tps}: a number of transactions per second above 0 (default 15)`);
// What the soak must at least do, in proportion to its length: 10 minutes ask for 20 of everything.
const least = Math.max(1, Math.round(2 * minutes));
const lines: string[] = [];
const result = await runSoak({
  databaseUrl,
  amqpUrl: clusterUrl ?? services.amqpUrl,
  // Each cluster fault takes 10-60 s (a node restarts, a frozen one waits out the net tick time), one at a time.
  cluster: clusterUrl ? { clusterFaultsPerKind: Math.max(1, Math.floor((2 * minutes) / 3)) } : undefined,
  // Each cut outlasts the lease (15 s) and a few seconds pass between two.
  hosts: hostServers ? { hostFaultsPerKind: Math.max(1, Math.floor(minutes)) } : undefined,
  wakeups: values.wakeups as "notify" | "local" | undefined,
  pgbouncer: values.pgbouncer,
  serverless: values.serverless,
  seed,
  seconds: minutes * 60,
  workers: Number(values.workers),
  transactionsPerSecond: tps,
  faultEveryMs: 1200,
  minimums: {
    // In proportion to the rate too: 500 tasks a minute of soak at the default 15 transactions a second.
    committedTasks: Math.round((500 * least * tps) / 15),
    retries: Math.round((50 * least * tps) / 15),
    killsMidTask: least,
    rerunsAfterKill: least,
    recoveries: least,
    // No wake-ups in the serverless soak, so none comes early.
    earlyWakeups: values.serverless ? 0 : least,
    faultsPerKind: least,
    scheduleSlots: 10 * least,
    limitedStarts: 10 * least,
    workflows: 10 * least,
  },
  print: (line) => {
    lines.push(line);
    process.stdout.write(`${line}\n`);
  },
});
await database.drop();
await services.stop();
mkdirSync(".artifacts", { recursive: true });
const reruns = lines.filter((line) => line.startsWith("  re-run after kill:")).map((line) => `- ${line.trim()}`);
const violations = result.violations.map((violation) => `- ${violation}`);
writeFileSync(
  `.artifacts/soak-${variant}-latest.md`,
  [
    `Soak of ${values.minutes} min on ${variant}, seed ${seed}, ${tps} transactions/s, ${new Date(started).toISOString()}: ${result.violations.length === 0 ? "PASS" : "FAIL"}`,
    "",
    result.table,
    "",
    `Violations (${violations.length}):`,
    ...violations,
    "",
    `Tasks that ran again because the worker running them was SIGKILLed (${reruns.length}, allowed):`,
    ...reruns,
    "",
  ].join("\n"),
);
console.log(result.violations.length === 0 ? "soak: PASS" : "soak: FAIL");
process.exit(result.violations.length === 0 ? 0 : 1);
