// `task-runner status`: task counts by queue, name and status, how long the oldest due task has waited per queue,
// whether a cleaner leads, and the broker's state with its consumers per queue. `--json` prints the same as one object.

import type { LeaderInfo } from "../store/leader-lock.js";
import { TASK_STATUSES, type TaskStatus } from "../store/task-status.js";
import type { PendingAge, StatusCount } from "../store/views.js";
import { COMMON_HELP, commandConfig, commandTable, parseCommand, type CliIo } from "./command-context.js";
import { brokerReport, renderBroker, type BrokerReport } from "./broker-report.js";
import { withStore } from "./database-session.js";
import { renderSchedules, scheduleReport, type ScheduleLine } from "./schedule-report.js";
import { queueReport, renderQueues, type QueueLine } from "./queue-report.js";
import { EXIT_OK } from "./exit-codes.js";
import { resolveSignalOptions } from "../scaler/scaler-options.js";
import { renderSignal, signalOptions } from "./signal-report.js";
import { signalReport, type SignalReport } from "../scaler/signal-report.js";

const statusHelp = `Usage: task-runner status [--json] [--window <s>] [--headroom <x>] [--drain <s>]

Shows task counts by queue, task name and status, the oldest due pending task per queue, whether a cleaner leads and
what waits without one (expired leases and recurring schedules always; delayed tasks, retries and lost wake-ups too when
workers are woken by RabbitMQ or NOTIFY instead of polling), the broker: connected (with the consumers and waiting
wake-ups of each queue), refused (with what to fix), unreachable, or none configured, and each recurring schedule with
its last and next slot, the queue controls: paused queues and the limits declared, and the scaling signal: per queue,
tasks enqueued and completed a second, the backlog, the mean processing time and the workers recommended (with the
config's worker concurrency, 10 by default).

Options:
      --json               print one JSON object instead of tables
      --window <s>         seconds over which the signal counts arrivals and completions (default 60, at most 900)
      --headroom <x>       factor over the workers that exactly keep up (default 1.2)
      --drain <s>          seconds within which the recommended workers drain the backlog (default 60)

${COMMON_HELP}`;

const STATUSES = TASK_STATUSES;

interface StatusReport {
  tasks: Array<{ queue: string; name: string } & Record<TaskStatus, number>>;
  due: Array<{ queue: string; due: number; oldestDueSeconds: number }>;
  cleaner: { leading: boolean; pid: number | null; pidOf: LeaderInfo["pidOf"] | null; host: string | null; since: string | null };
  broker: BrokerReport;
  /** The recurring schedules the config declares (and those the database remembers that it no longer does). */
  schedules: ScheduleLine[];
  /** Paused queues and the limits declared by the workers and the config. */
  queues: QueueLine[];
  /** The scaling signal per queue. */
  signal: SignalReport;
}

export async function statusCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseCommand("status", argv, {
    json: { type: "boolean" },
    window: { type: "string" },
    headroom: { type: "string" },
    drain: { type: "string" },
  });
  if (values.help) {
    io.out(statusHelp);
    return EXIT_OK;
  }
  const config = await commandConfig(values, io, { database: true });
  const table = commandTable(config);
  const options = signalOptions(values, config.worker?.concurrency);
  resolveSignalOptions(options); // a bad flag is a usage error before the database is reached
  const report = await withStore(config.databaseUrl!, table, config.sources.databaseUrl, async (store) => {
    const lockKey = config.cleaner?.lockKey ?? store.defaultLockKey();
    const [counts, ages, holder] = await Promise.all([store.countTasks(), store.pendingAges(), store.leaderHolder(lockKey)]);
    const queues = new Set([...Object.values(config.tasks ?? {}).map((task) => task.queue ?? "default"), ...counts.map((row) => row.queue)]);
    const schedules = await scheduleReport(config.tasks, store);
    const controls = await queueReport(config.tasks, store);
    const signal = await signalReport(store, options);
    return { ...buildReport(counts, ages, holder, await brokerReport(config, store, [...queues].sort())), schedules, queues: controls, signal };
  });
  io.out(values.json ? `${JSON.stringify(report, null, 2)}\n` : renderReport(report));
  return EXIT_OK;
}

function buildReport(
  counts: StatusCount[],
  ages: PendingAge[],
  holder: LeaderInfo | undefined,
  broker: BrokerReport,
): Omit<StatusReport, "schedules" | "queues" | "signal"> {
  const rows = new Map<string, StatusReport["tasks"][number]>();
  for (const { queue, name, status, count } of counts) {
    const key = `${queue}\u0000${name}`;
    let row = rows.get(key);
    if (!row) rows.set(key, (row = { queue, name, pending: 0, running: 0, succeeded: 0, dead: 0, cancelled: 0 }));
    if ((STATUSES as readonly string[]).includes(status)) row[status as TaskStatus] += count;
  }
  return {
    tasks: [...rows.values()],
    due: ages.map((age) => ({ queue: age.queue, due: age.due, oldestDueSeconds: Math.round(age.oldestDueSeconds * 10) / 10 })),
    cleaner: {
      leading: holder !== undefined,
      pid: holder?.pid ?? null,
      pidOf: holder?.pidOf ?? null,
      // A lease row's holder is "host:pid:…"; a database session's host is its client address.
      host: holder ? (holder.pidOf === "process" ? (holder.holder?.split(":")[0] ?? null) : holder.clientAddr) : null,
      since: holder?.since?.toISOString() ?? null,
    },
    broker,
  };
}

function renderReport(report: StatusReport): string {
  const lines: string[] = [];
  if (report.tasks.length === 0) lines.push("No tasks.");
  else {
    const header = ["QUEUE", "TASK", ...STATUSES.map((status) => status.toUpperCase())];
    const body = report.tasks.map((row) => [row.queue, row.name, ...STATUSES.map((status) => String(row[status]))]);
    lines.push(...table([header, ...body], 2));
  }
  lines.push("");
  if (report.due.length === 0) lines.push("Due now: none waiting.");
  else {
    lines.push("Due now:");
    for (const due of report.due) lines.push(`  ${due.queue}: ${due.due} due, oldest waiting ${duration(due.oldestDueSeconds)}`);
  }
  lines.push(cleanerLine(report));
  lines.push(...renderBroker(report.broker));
  lines.push(...renderSchedules(report.schedules));
  lines.push(...renderQueues(report.queues));
  lines.push(...renderSignal(report.signal));
  return `${lines.join("\n")}\n`;
}

const PID_OF: Record<LeaderInfo["pidOf"], string> = {
  "database-backend": "database backend pid",
  "database-connection": "database connection id",
  process: "process",
};

/**
 * Who leads, or what waits for a leader: the cleaner recovers expired leases and prunes whatever wakes the workers;
 * delayed and retried tasks also wait for it only when workers are woken (RabbitMQ, NOTIFY) instead of polling.
 */
function cleanerLine({ cleaner, broker, schedules }: StatusReport): string {
  const unfired = schedules.some((schedule) => schedule.declared) ? " Recurring schedules fire only while one leads." : "";
  return leaderLine({ cleaner, broker }) + (cleaner.leading ? "" : unfired);
}

function leaderLine({ cleaner, broker }: Pick<StatusReport, "cleaner" | "broker">): string {
  if (cleaner.leading) {
    const on = cleaner.pidOf === "process" && cleaner.host ? ` on ${cleaner.host}` : "";
    return `Cleaner: leading (${PID_OF[cleaner.pidOf!]} ${cleaner.pid}${on}).`;
  }
  const woken = broker.transport === "notify" || (broker.transport === "rabbitmq" && broker.state === "connected");
  if (woken) {
    return (
      "Cleaner: none leads. Workers are woken for new tasks only, so delayed tasks, retries, expired leases and lost " +
      "wake-ups wait until one runs (task-runner cleaner)."
    );
  }
  const polling = broker.transport === "rabbitmq" ? "Workers poll while the broker is unreachable" : "Workers poll for due tasks";
  return (
    `Cleaner: none leads. ${polling}, so delayed tasks and retries still run; tasks whose worker died (expired leases) ` +
    "wait until one runs (task-runner cleaner), and finished tasks are not pruned."
  );
}

/** Left-aligned text columns, numbers right-aligned. */
function table(rows: string[][], firstNumeric: number): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) =>
    row
      .map((cell, column) => (column >= firstNumeric ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)))
      .join("  ")
      .trimEnd(),
  );
}

function duration(seconds: number): string {
  if (seconds < 120) return `${seconds.toFixed(1)} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172_800) return `${(seconds / 3600).toFixed(1)} h`;
  return `${(seconds / 86_400).toFixed(1)} days`;
}
