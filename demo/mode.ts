// Where the demo runs: DATABASE_URL / AMQP_URL when set; else the local PostgreSQL (and RabbitMQ when it answers);
// else, when no database answers, a SQLite file (the embedded default) with wake-ups delivered in-process. It never
// starts containers: the demo shows what a newcomer has, not what Docker could fetch.

import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { reachable } from "../test/support/services.js";

const LOCAL_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/postgres";
const LOCAL_AMQP_URL = "amqp://guest:guest@127.0.0.1:5672";
const root = fileURLToPath(new URL("..", import.meta.url));

export type DemoMode =
  { kind: "postgresql"; serverUrl: string; amqpUrl: string | undefined; why: string } | { kind: "sqlite"; file: string; amqpUrl: string | undefined; why: string };

export async function chooseMode(env: NodeJS.ProcessEnv = process.env): Promise<DemoMode> {
  const amqpUrl = env.AMQP_URL || ((await reachable(LOCAL_AMQP_URL)) ? LOCAL_AMQP_URL : undefined);
  const given = env.DATABASE_URL;
  if (given?.startsWith("file:")) {
    const file = join(dirname(resolve(given.replace(/^file:/, ""))), "ptq_demo.db");
    return { kind: "sqlite", file, amqpUrl, why: "DATABASE_URL names a SQLite file; the demo uses ptq_demo.db beside it" };
  }
  if (given) return { kind: "postgresql", serverUrl: given, amqpUrl, why: "DATABASE_URL is set" };
  if (await reachable(LOCAL_DATABASE_URL)) return { kind: "postgresql", serverUrl: LOCAL_DATABASE_URL, amqpUrl, why: "PostgreSQL answers on 127.0.0.1:5432" };
  return { kind: "sqlite", file: join(root, ".demo", "ptq_demo.db"), amqpUrl, why: "no database answers on 127.0.0.1 (PostgreSQL 5432) and DATABASE_URL is not set" };
}

/** One line that says what the demo runs on. */
export function describeMode(mode: DemoMode): string {
  const where = mode.kind === "postgresql" ? `PostgreSQL ${redact(mode.serverUrl)} (database ptq_demo)` : `SQLite file ${mode.file} (the embedded default)`;
  const wakeups = mode.amqpUrl
    ? `RabbitMQ ${redact(mode.amqpUrl)}`
    : mode.kind === "sqlite"
      ? "in-process (no broker answered)"
      : "PostgreSQL NOTIFY (no broker answered)";
  return `Mode: ${where}; wake-ups: ${wakeups}. Why: ${mode.why}.`;
}

function redact(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}`;
}
