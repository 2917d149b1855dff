// What `task-runner init` prints after writing the model: the next steps, with the extension and runner config
// snippets fitted to the database it found and the wake-up transport the app will use (RabbitMQ only when chosen).

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { notificationDatabases } from "../dialects/index.js";
import type { Dialect } from "../store/dialect.js";
import { DEFAULT_POLL_INTERVAL_MS } from "../worker/worker-options.js";
import type { AppPrefix } from "./app-prefix.js";

/** How the app's workers will be woken. */
type InitWakeups = "rabbitmq" | "notify" | "polling" | "in-process";

/** The transport init writes the steps for, and why. */
interface WakeupsFound {
  wakeups: InitWakeups;
  /** Why this one, for the closing note: "AMQP_URL is set in the environment", "--wakeups polling", … */
  reason: string;
  /** Chosen with --wakeups (so the snippets name it), not found. */
  chosen: boolean;
  /** The database, for people: "PostgreSQL". */
  database: string;
}

const FLAG_VALUES = ["rabbitmq", "notify", "polling"] as const;

/**
 * The transport: `--wakeups` when given, else RabbitMQ when AMQP_URL is set (in the environment or the project's .env),
 * else what the database's dialect does without a broker (its capabilities). A string is a usage error for init to print.
 */
export function findWakeups(
  dialect: Pick<Dialect, "displayName" | "capabilities">,
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  cwd: string,
): WakeupsFound | string {
  if (flag !== undefined) {
    if (!(FLAG_VALUES as readonly string[]).includes(flag)) return `--wakeups ${JSON.stringify(flag)} is not a wake-up transport; use rabbitmq, notify or polling.`;
    if (flag === "notify" && !dialect.capabilities.notifications) {
      return `--wakeups notify needs ${notificationDatabases()}'s LISTEN/NOTIFY, which ${dialect.displayName} does not have; use polling (or leave --wakeups out), or rabbitmq.`;
    }
    return { wakeups: flag as InitWakeups, reason: `--wakeups ${flag}`, chosen: true, database: dialect.displayName };
  }
  const found = (wakeups: InitWakeups, reason: string): WakeupsFound => ({ wakeups, reason, chosen: false, database: dialect.displayName });
  if (env.AMQP_URL) return found("rabbitmq", "AMQP_URL is set in the environment");
  if (dotEnvHasAmqpUrl(cwd)) return found("rabbitmq", "AMQP_URL is set in .env");
  return found(dialect.capabilities.wakeupsWithoutBroker, `${dialect.displayName} without AMQP_URL`);
}

function dotEnvHasAmqpUrl(cwd: string): boolean {
  const file = join(cwd, ".env");
  return existsSync(file) && /^\s*(?:export\s+)?AMQP_URL\s*=\s*["']?[^\s"'#]/m.test(readFileSync(file, "utf8"));
}

interface NextStepsInput {
  found: WakeupsFound;
  /** The prefix init derived (or --prefix gave), and whether it was given. */
  prefix: AppPrefix & { given: boolean };
  /** `, model: "…", table: "…"` when not the defaults; empty otherwise. */
  names: string;
}

/** The "Next:" block and the closing note on wake-ups. */
export function nextSteps({ found, prefix, names }: NextStepsInput): string {
  const options = `${optionsFor(found, prefix)}${names}`;
  return (
    `Next:\n` +
    `  1. apply it: npx task-runner migrate   (or npx prisma migrate deploy: both record it in _prisma_migrations)\n` +
    `  2. regenerate the client: npx prisma generate\n` +
    `  3. extend your client:\n` +
    `       const prisma = new PrismaClient({ adapter }).$extends(taskQueue({ tasks${options} }));\n` +
    `  4. configure the worker and cleaner the same way, in task-runner.config.ts:\n` +
    `       export default defineConfig({ tasks, databaseUrl: process.env.DATABASE_URL${options} });\n` +
    `     then run them: npx task-runner start\n\n` +
    wrap(wakeupsNote(found, prefix))
  );
}

/** `text` as lines of at most 118 characters, broken between words. */
function wrap(text: string, width = 118): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.trim().split(/ +/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return `${[...lines, line].join("\n")}\n`;
}

/** The wake-up options of both snippets: amqpUrl only with RabbitMQ; the prefix where it names something. */
function optionsFor({ wakeups, chosen }: WakeupsFound, prefix: NextStepsInput["prefix"]): string {
  if (wakeups === "rabbitmq") return `, amqpUrl: process.env.AMQP_URL, amqpPrefix: "${prefix.prefix}"`;
  if (wakeups === "notify") return prefix.given ? `, amqpPrefix: "${prefix.prefix}"` : "";
  // Polling is the default only where the database offers nothing else; chosen elsewhere, every process must say so.
  if (wakeups === "polling" && chosen) return `, wakeups: "polling"`;
  return "";
}

function wakeupsNote({ wakeups, reason, chosen, database }: WakeupsFound, prefix: NextStepsInput["prefix"]): string {
  const withRabbit =
    `(docs/transports.md in prisma-task-queue): give both snippets amqpUrl and amqpPrefix "${prefix.prefix}" ` +
    `(from ${prefix.source}), so apps sharing a broker do not collide.`;
  const rabbit = `RabbitMQ is optional ${withRabbit}`;
  const poll = `every ${DEFAULT_POLL_INTERVAL_MS} ms (the worker's pollIntervalMs)`;
  switch (wakeups) {
    case "rabbitmq":
      return (
        `Wake-ups: RabbitMQ (${reason}); every process of the app needs AMQP_URL. amqpPrefix "${prefix.prefix}" comes from ` +
        `${prefix.source}: it names this app's RabbitMQ exchanges and queues, so apps sharing a broker do not collide. ` +
        `Every process of the app must use the same one (pass --prefix to choose).\n`
      );
    case "notify":
      return (
        `Wake-ups: ${database} NOTIFY (${reason}): no broker to run; the insert's own NOTIFY wakes the workers at COMMIT` +
        `${prefix.given ? `, on the channel "${prefix.prefix}.wakeups" (amqpPrefix "${prefix.prefix}" comes from --prefix)` : ""}. ` +
        `${rabbit}\n`
      );
    case "in-process":
      return (
        `Wake-ups: none to run (${reason}): a worker in your app's own process is woken in-process right after the commit; ` +
        `\`task-runner start\` runs in a process of its own and finds tasks by polling ${poll}. ${rabbit}\n`
      );
    case "polling":
      return (
        `Wake-ups: none (${reason}): workers find tasks by polling the table ${poll}.` +
        `${chosen ? "" : ` For wake-ups within milliseconds, use RabbitMQ ${withRabbit}`}\n`
      );
  }
}
