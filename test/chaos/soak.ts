// The chaos soak: app-like load through the extension while 2-3 worker processes and 2 cleaner processes run, and a
// seeded fault schedule kills processes, cuts and stalls the broker's connections, misdelivers wake-ups, pauses a queue and injects
// the database's own faults (soak-database.ts: cut and stalled connections of a server, a SQLite file's write lock
// held past the busy timeout). After the faults stop and the system settles, it checks the guarantees (soak-check.ts)
// and prints a summary.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { join } from "node:path";
import { amqpUrls } from "../../src/amqp-url.js";
import { topology } from "../../src/wakeups/rabbitmq/topology.js";
import { TcpProxy } from "../support/tcp-proxy.js";
import type { LogLine } from "../support/worker-process.js";
import { waitUntil } from "../support/wait.js";
import { checkSoak, describeRuns, summaryTable, type SoakFindings, type SoakMinimums } from "./soak-check.js";
import { SoakChildren, type Role } from "./soak-children.js";
import { openSoakDatabase, type SoakDatabase } from "./soak-database.js";
import { COMMON_FAULT_KINDS, emptyFaultCounts, runFaults, type FaultCounts, type FaultTargets } from "./soak-faults.js";
import { DriverLink } from "./soak-driver-link.js";
import { emptyLoadRecord, type LoadRecord } from "./soak-load.js";
import { readRunLog } from "./soak-runlog.js";
import { SeededRandom } from "./seeded-random.js";
import { rawWakeups, type SoakWakeups } from "./soak-wakeups.js";
import type { PauseWindow } from "./soak-check-controls.js";
import { SOAK_PAUSED_QUEUE, soakQueueLimits } from "./soak-tasks.js";
import { ClusterFaults, CLUSTER_FAULT_KINDS, ProxySet } from "./soak-cluster.js";
import { RawBroker } from "./soak-raw-broker.js";
import { SoakHosts } from "./soak-hosts.js";
import { APP_HOST, BRIDGE_ADDRESS, onHost } from "../support/hosts.js";

export interface SoakOptions {
  /** Whether the workflows wait for the children they start (default true). */
  waitForChildren?: boolean;
  /** A migrated database (task table + reports) of its own: postgresql://, mysql:// (or mariadb://) or a SQLite file: URL. */
  databaseUrl: string;
  amqpUrl: string;
  /**
   * "notify": every process wakes through PostgreSQL NOTIFY instead of RabbitMQ (no AMQP_URL in the children or the
   * driver); the broker faults give way to NOTIFY's (duplicate and phantom notifications; the listener's session is
   * cut and stalled by the database faults). "local" (SQLite): no broker, so workers of other processes are woken
   * through their local sockets; the soak's own wake-ups are written to those sockets. Default: RabbitMQ.
   */
  wakeups?: SoakWakeups;
  /** PostgreSQL through a PgBouncer in transaction mode of the soak's own (pgbouncer=true), sessions on the direct URL. */
  pgbouncer?: boolean;
  /**
   * A deployment with no worker and no cleaner: the "workers" are serving processes whose only runner is the cron
   * route's pass (runDueTasks, every second), killed as invocations are cut off. No broker and no wake-ups, so the
   * wake-up faults and the cleaner kills do not apply.
   */
  serverless?: boolean;
  /**
   * amqpUrl names the three nodes of the cluster of scripts/rabbitmq-cluster.sh (separated by commas): quorum queues,
   * a proxy per node, and the cluster's own faults (soak-cluster.ts) beside the others, each at least
   * `clusterFaultsPerKind` times.
   */
  cluster?: { clusterFaultsPerKind: number };
  /**
   * The database and broker are those of scripts/hosts.sh's ptq-db: workers run on ptq-w1 and ptq-w2 (the clock of
   * ptq-w2 skewed), the driver and a cleaner on ptq-app, reaching them through proxies on the bridge's address; a
   * worker host is cut off for longer than the lease and restored (soak-hosts.ts), at least `hostFaultsPerKind` times.
   */
  hosts?: { hostFaultsPerKind: number };
  seed: number;
  /** How long load and faults run. */
  seconds: number;
  workers?: number;
  cleaners?: number;
  /** Mean time between faults. */
  faultEveryMs?: number;
  transactionConcurrency?: number;
  /** Transactions the driver starts per second at most. Default 15 (about 40 tasks a second). */
  transactionsPerSecond?: number;
  /** The workers' lease. Default SOAK_LEASE_MS. */
  leaseMs?: number;
  /** What the soak must at least have done to count (see SoakMinimums); a shortfall is a violation. */
  minimums: SoakMinimums;
  print?: (line: string) => void;
}

export interface SoakResult extends SoakFindings {
  seed: number;
  faults: FaultCounts;
  table: string;
}

/** Workers' lease. Longer than any injected outage, so a live worker never loses one (that would be a violation). */
export const SOAK_LEASE_MS = 15_000;
const SETTLE_MS = 180_000;

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const faultRandom = new SeededRandom(options.seed ^ 0x5eed);
  print(`soak: seed ${options.seed}, ${options.seconds} s of load and faults (replay with --seed ${options.seed})`);
  const prefix = `ptq_soak_${options.seed}_${process.pid}`;
  const cluster = options.cluster;
  const names = topology(prefix, cluster !== undefined);
  const runLogDir = mkdtempSync(join(tmpdir(), "ptq-soak-"));
  let keepRunLogs = false;
  const proxyHost = options.hosts ? BRIDGE_ADDRESS : undefined;
  const db = await openSoakDatabase(options.databaseUrl, { pgbouncer: options.pgbouncer, proxyHost });
  print(`soak: ${db.dialect}${options.pgbouncer ? " through PgBouncer (transaction mode)" : ""}, database faults: ${db.faultKinds.join(", ")}`);

  const proxy = async () => {
    if (cluster) return ProxySet.start(amqpUrls(options.amqpUrl));
    const broker = new URL(options.amqpUrl);
    return new TcpProxy(broker.hostname, Number(broker.port || 5672), proxyHost).start();
  };
  const brokerProxy = await proxy();
  const driverBrokerProxy = await proxy();

  const raw = await RawBroker.open(options.amqpUrl, names);
  // Without a broker (NOTIFY, SQLite's local sockets, the serverless passes) the broker's faults do not apply.
  const serverless = options.serverless === true;
  const brokerless = options.wakeups !== undefined || serverless;
  // Duplicate and phantom wake-ups go straight to the broker, the database or the sockets, not through the proxies.
  const raws = rawWakeups(options.wakeups, { prefix, broker: raw, store: db.store });
  const publishRaw = (ids: string[]) => {
    if (ids.length > 0) raws.publish(ids);
  };

  const leaseMs = options.leaseMs ?? SOAK_LEASE_MS;
  const hosts = options.hosts && new SoakHosts(new SeededRandom(options.seed ^ 0x4057), print);
  const children = new SoakChildren(
    (role: Role) => ({
      SOAK_ROLE: role,
      DATABASE_URL: db.childUrl,
      DIRECT_URL: db.childDirectUrl ?? "",
      AMQP_URL: brokerless ? "" : brokerProxy.route(options.amqpUrl),
      SOAK_WAKEUPS: options.wakeups === "notify" ? "notify" : "",
      SOAK_SERVERLESS: serverless ? "1" : "",
      SOAK_QUORUM: cluster ? "1" : "",
      SOAK_PREFIX: prefix,
      SOAK_RUNLOG_DIR: runLogDir,
      SOAK_LEASE_MS: String(leaseMs),
    }),
    runLogDir,
    hosts?.place,
  );
  let driver: DriverLink | undefined;
  const loadNow = () => driver?.load ?? emptyLoadRecord();
  // Without a broker its faults do not apply: a NOTIFY that fails fails the insert's transaction (a database fault).
  const brokerFaults: readonly string[] = ["cut-broker", "stall-broker", "publish-failure"];
  // Nothing listens for wake-ups in the serverless soak, and no cleaner runs: those faults do not apply either.
  const serverlessFaults: readonly string[] = ["kill-leading-cleaner", "duplicate-wakeups", "phantom-wakeups", "early-wakeup"];
  const faults = emptyFaultCounts([
    ...COMMON_FAULT_KINDS.filter((kind) => (!brokerless || !brokerFaults.includes(kind)) && (!serverless || !serverlessFaults.includes(kind))),
    ...db.faultKinds,
  ]);
  const phantomIds: string[] = [];
  const pauses: PauseWindow[] = [];
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const targets: FaultTargets = {
    async killWorker() {
      const killed = await children.killWorker();
      return killed && `pid ${killed.pid} with ${killed.openRuns} handlers running`;
    },
    async killLeadingCleaner() {
      const wasLeader = await children.killLeadingCleaner((items) => faultRandom.pick(items));
      return wasLeader === undefined ? undefined : wasLeader ? "the leader" : "a follower (no leader at that moment)";
    },
    database: (kind, random) => db.inject(kind, random),
    cutBroker: () => brokerProxy.cut(),
    async stallBroker(ms) {
      brokerProxy.blackhole();
      await sleep(ms);
      brokerProxy.restore();
    },
    duplicateWakeups(count) {
      // Half from the newest tasks (likely pending or running: races with their claim), half from any.
      const ids = [...loadNow().committed.keys()];
      const recent = ids.slice(-50);
      const picked = Array.from({ length: Math.min(count, ids.length) }, (_, i) => faultRandom.pick(i % 2 ? ids : recent));
      publishRaw(picked);
      return picked.length;
    },
    phantomWakeups(count) {
      // Ids that never existed, and ids of tasks whose transaction rolled back.
      const fresh = Array.from({ length: count }, () => crypto.randomUUID());
      phantomIds.push(...fresh);
      const rolledBack = [...loadNow().rolledBack].slice(-count);
      publishRaw([...fresh, ...rolledBack]);
    },
    requestEarlyWakeup: () => driver?.requestEarlyWakeup(),
    requestFailingCommit: () => driver?.requestFailingCommit(),
    async failPublishing(ms) {
      driverBrokerProxy.refuse();
      await sleep(ms);
      driverBrokerProxy.restore();
    },
    async pauseQueue(ms) {
      // The window checked is from after the pause committed to before the resume began, by the database clock.
      await db.store.pauseQueue(SOAK_PAUSED_QUEUE);
      const from = (await db.store.now()).getTime();
      await sleep(ms);
      const to = (await db.store.now()).getTime();
      // The resume marks the queue's due tasks unpublished: the cleaners send their wake-ups, the workers' polls find them.
      await db.store.resumeQueue(SOAK_PAUSED_QUEUE, 0);
      pauses.push({ from, to });
      return `${SOAK_PAUSED_QUEUE} for ${ms} ms`;
    },
  };

  const clusterFaults =
    cluster && brokerProxy instanceof ProxySet
      ? new ClusterFaults(new SeededRandom(options.seed ^ 0xc1a5), brokerProxy, () => children.lines("worker"), print)
      : undefined;

  const loopDelay = monitorEventLoopDelay({ resolution: 20 });
  loopDelay.enable();
  const loads: number[] = [];
  const loadSampler = setInterval(() => loads.push(loadavg()[0]!), 5000);
  try {
    // With no worker to declare them (queueLimits), the serverless deployment's operator writes the queues' limits,
    // as `task-runner limit` does; the cron passes read and keep them.
    if (serverless) {
      await db.store.syncQueues(
        Object.entries(soakQueueLimits).map(([queue, limits]) => ({
          queue,
          concurrency: "concurrency" in limits ? limits.concurrency : null,
          rateLimit: "rateLimit" in limits ? { ...limits.rateLimit } : null,
        })),
      );
    }
    await children.start("worker", options.workers ?? 3);
    await children.start("cleaner", serverless ? 0 : (options.cleaners ?? 2));
    driver = await DriverLink.start({
      databaseUrl: db.appUrl,
      amqpUrl: brokerless ? "" : driverBrokerProxy.route(options.amqpUrl),
      amqpDirectUrl: options.amqpUrl,
      wakeups: options.wakeups,
      quorumQueues: cluster !== undefined,
      prefix,
      seed: options.seed,
      concurrency: options.transactionConcurrency ?? 6,
      perSecond: options.transactionsPerSecond ?? 15,
      waitForChildren: options.waitForChildren ?? true,
      onHost: hosts && onHost(APP_HOST),
    });
    const endAt = Date.now() + options.seconds * 1000;
    const clusterRun = clusterFaults?.run(() => Date.now() < endAt);
    const hostRun = hosts?.run(
      () => Date.now() < endAt,
      () => leaseMs + faultRandom.int(3000, 6000),
      (host) => children.pidsOn(host),
      (host) => children.startingOnHost(host),
    );
    await runFaults(faultRandom, targets, faults, options.faultEveryMs ?? 1500, () => Date.now() < endAt, print);
    await clusterRun;
    await hostRun;
    db.restore();
    brokerProxy.restore();
    driverBrokerProxy.restore();
    await driver.stop();
    const load = driver.load;
    print(`soak: faults stopped after ${load.transactions} transactions; settling`);
    await children.settled();
    const settleStarted = Date.now();
    // The recurring task keeps firing while the soak settles: first every task reaches its final state (with the
    // cleaners' recoveries; a recurring task runs in moments, so none is left between two slots), then the cleaners
    // stop, so no slot fires any more, and the tasks of the last slots (fired ahead, up to scheduleAheadMs) finish.
    let shownAt = settleStarted;
    await waitUntil(
      async () => {
        // A recurring task fired ahead of its slot waits for its time: it is not left over, and never all gone while
        // the cleaners fire ahead.
        const left = await db.prisma.task.count({
          where: { status: { in: ["pending", "running"] }, NOT: { name: "soak-scheduled", status: "pending", runAt: { gt: new Date() } } },
        });
        // Every 15 s, what is left by queue: a queue that drains slowly shows apart from one that is stuck.
        if (left > 0 && Date.now() - shownAt >= 15_000) {
          shownAt = Date.now();
          print(`soak: settling for ${Math.round((shownAt - settleStarted) / 1000)} s, left: ${await unfinishedByQueue(db)}`);
        }
        return left === 0;
      },
      "every task to reach a final state",
      SETTLE_MS,
    ).catch((error: Error) => print(`soak: ${error.message}`));
    await children.stop("cleaner");
    if (serverless) children.signal("worker", "SIGUSR2"); // the passes' sweeps are the cleaner here
    await waitUntil(
      async () => (await db.prisma.task.count({ where: { status: { in: ["pending", "running"] } } })) === 0,
      "the last recurring tasks to finish",
      30_000,
    ).catch((error: Error) => print(`soak: ${error.message}`));
    print(`soak: settled in ${Date.now() - settleStarted} ms`);
    let depth = 0;
    if (!brokerless) {
      await waitUntil(async () => (depth = (await raw.depth()) ?? -1) === 0, "the queue to drain", 15_000).catch(() => {});
    }
    const workerLines = children.lines("worker");
    const findings = await checkSoak(
      db,
      {
        load,
        runLogDir,
        killedWorkers: children.killedWorkers,
        cutOff: hosts?.cutTimes(),
        killsMidTask: children.killsMidTask,
        phantomIds,
        pauses,
        faults,
        recoveries: [...children.lines("cleaner"), ...children.lines("worker")].filter((line) => /^lease expired; task/.test(line.message)).length,
        leaseLossesOnLiveWorkers: workerLines
          .filter((line) => /^task lease lost/.test(line.message) && !children.killedWorkers.has(line.pid) && !hosts?.cutBefore(line, children.placed))
          .map((line) => String(line.taskId)),
        queueDepth: depth,
      },
      options.minimums,
    );
    for (const failure of children.startFailures) findings.violations.push(`a process did not start: ${failure}`);
    for (const crash of children.crashes) findings.violations.push(`a process crashed: ${crash}`);
    if (clusterFaults && cluster) {
      for (const error of clusterFaults.errors) findings.violations.push(`a cluster fault failed: ${error}`);
      for (const kind of CLUSTER_FAULT_KINDS) {
        const seen = clusterFaults.counts[kind];
        if (seen < cluster.clusterFaultsPerKind) findings.violations.push(`cluster fault ${kind}: ${seen}, fewer than ${cluster.clusterFaultsPerKind}`);
        findings.summary.splice(-1, 0, [`cluster fault: ${kind} (worst time until its workers consumed again)`, `${seen} (${clusterFaults.worstResumeMs(kind)} ms)`]);
      }
      print("soak: cluster faults, and how long the workers on the faulted node took to consume wake-ups again:");
      for (const line of clusterFaults.report()) print(`  ${line}`);
    }
    if (hosts && options.hosts) hosts.report(findings, options.hosts.hostFaultsPerKind, children.placed, runLogDir, print);
    const workers = children.stats("worker");
    const cleaners = children.stats("cleaner");
    findings.summary.splice(
      -1,
      1,
      ['claims by wake-up / timer / poll (the workers\' "task claimed" lines)', claimRoutes(workerLines)],
      ["machine load average (1 min), mean / max", `${(loads.reduce((a, b) => a + b, 0) / Math.max(1, loads.length)).toFixed(1)} / ${Math.max(0, ...loads).toFixed(1)}`],
      ["event-loop delay max (ms): orchestrator / workers / cleaners", `${Math.round(loopDelay.max / 1e6)} / ${workers.loopDelayMaxMs} / ${cleaners.loopDelayMaxMs}`],
      ["CPU per process, mean %: workers / cleaners", `${workers.cpuPercent} / ${cleaners.cpuPercent}`],
      ["violations", String(findings.violations.length)],
    );
    if (process.env.SOAK_CSV) await writeTimeline(process.env.SOAK_CSV, db, load, workerLines);
    if (process.env.SOAK_LOGS) {
      const all = [...workerLines.map((line) => ({ role: "worker", ...line })), ...children.lines("cleaner").map((line) => ({ role: "cleaner", ...line }))];
      writeFileSync(process.env.SOAK_LOGS, all.map((line) => JSON.stringify(line)).join("\n"));
    }
    const table = summaryTable(findings.summary);
    print(table);
    print(`soak: ${findings.rerunsAfterKill.length} tasks ran again because the worker running them was SIGKILLed (allowed):`);
    for (const rerun of findings.rerunsAfterKill) print(`  re-run after kill: task ${rerun.id}, attempt ${rerun.attempt} was on pid ${rerun.killedPid}`);
    for (const violation of findings.violations.slice(0, 50)) print(`VIOLATION: ${violation}`);
    for (const [shape, count] of violationShapes(findings.violations)) print(`violations of one shape: ${count} × ${shape}`);
    if (findings.violations.length > 0) {
      await dump(findings.suspects.slice(0, 8), db, runLogDir, children, print);
      keepRunLogs = true;
      print(`soak: ${findings.violations.length} violations; replay with --seed ${options.seed}; the handlers' run logs are kept in ${runLogDir}`);
    }
    return { ...findings, seed: options.seed, faults, table };
  } finally {
    loopDelay.disable();
    clearInterval(loadSampler);
    await hosts?.restoreAll();
    await driver?.kill();
    await children.stop();
    await raw.deleteAllAndClose();
    await Promise.all([brokerProxy.stop(), driverBrokerProxy.stop()]);
    await raws.close();
    await db.close();
    if (!keepRunLogs) rmSync(runLogDir, { recursive: true, force: true });
  }
}

/** How the workers' claims came about: by a wake-up, a due-timer or a poll, from their "task claimed" lines. */
function claimRoutes(lines: readonly LogLine[]): string {
  const claims = lines.filter((line) => line.message === "task claimed");
  return ["wakeup", "timer", "poll"].map((via) => claims.filter((line) => line.via === via).length).join(" / ");
}

/** The unfinished tasks by queue and status, e.g. "soak-rated 120 pending, soak-plain 2 running". */
async function unfinishedByQueue(db: SoakDatabase): Promise<string> {
  const groups = await db.prisma.task.groupBy({ by: ["queue", "status"], where: { status: { in: ["pending", "running"] } }, _count: { _all: true } });
  return groups.map((group) => `${group.queue} ${group._count._all} ${group.status}`).join(", ");
}

/** The violations counted by their text with the task ids left out, most frequent first: what the first 50 may not show. */
function violationShapes(violations: readonly string[]): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const violation of violations) {
    const shape = violation.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, "<id>");
    counts.set(shape, (counts.get(shape) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1]);
}

/** Debugging aid (env SOAK_CSV=path): per task, when it committed, was first claimed and finished, as CSV. */
async function writeTimeline(path: string, db: SoakDatabase, load: LoadRecord, workerLines: LogLine[]): Promise<void> {
  const claimed = new Map<string, number>();
  for (const line of workerLines) {
    const { taskId, time } = line;
    if (line.message === "task claimed" && typeof taskId === "string" && typeof time === "string" && !claimed.has(taskId)) claimed.set(taskId, Date.parse(time));
  }
  const rows = await db.prisma.task.findMany({ select: { id: true, attempts: true, finishedAt: true } });
  const csv = ["id,name,delayed,committed,claimed,finished,attempts"];
  for (const row of rows) {
    const task = load.committed.get(row.id);
    if (task) csv.push([row.id, task.name, task.delayed, task.committedAt, claimed.get(row.id) ?? "", row.finishedAt?.getTime() ?? 0, row.attempts].join(","));
  }
  writeFileSync(path, `${csv.join("\n")}\n`);
}

/** Whether a log field holding a list of task ids holds `id`. */
function names(field: unknown, id: string): boolean {
  return Array.isArray(field) && field.includes(id);
}

/** For each suspect task: its row, its runs and every log line of every process that names it. */
async function dump(ids: string[], db: SoakDatabase, runLogDir: string, children: SoakChildren, print: (line: string) => void): Promise<void> {
  const runs = readRunLog(runLogDir);
  const lines = [
    ...children.lines("worker").map((line): LogLine => ({ ...line, role: "worker" })),
    ...children.lines("cleaner").map((line): LogLine => ({ ...line, role: "cleaner" })),
  ].sort((a, b) => String(a.time).localeCompare(String(b.time)));
  for (const id of ids) {
    const task = await db.store.findTask(id);
    print(`--- task ${id}: ${JSON.stringify(task && { ...task, payload: undefined, result: undefined, lastError: task.lastError?.slice(0, 300) })}`);
    for (const line of describeRuns(runs.get(id))) print(line);
    const named = lines.filter((line) => line.taskId === id || names(line.taskIds, id) || names(line.tasks, id));
    for (const line of named) {
      const { time, message, pid, role, level, ...rest } = line;
      print(`  ${String(time)} ${String(role)} ${String(pid)} ${String(level)} ${message} ${JSON.stringify(rest)}`);
    }
  }
}
