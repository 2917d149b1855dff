// The real services the end-to-end test runs against: a fresh PostgreSQL database on the server of DATABASE_URL
// (else the local one) and the RabbitMQ of AMQP_URL (else the local one), with a broker prefix of its own.

import { randomBytes } from "node:crypto";
import { connect as tcpConnect } from "node:net";
import amqp from "amqplib";
import pg from "pg";

const LOCAL_SERVER_URL = "postgresql://postgres@127.0.0.1:5432/postgres";
const LOCAL_AMQP_URL = "amqp://guest:guest@127.0.0.1:5672";

export interface TestServices {
  /** The fresh database, created empty; db:setup creates the tables. */
  databaseUrl: string;
  amqpUrl: string;
  /** Exchange and queue prefix used only by this run. */
  amqpPrefix: string;
  /** Drops the database and deletes the run's exchanges and queues. */
  cleanUp(): Promise<void>;
}

export async function startServices(env: NodeJS.ProcessEnv = process.env): Promise<TestServices> {
  const serverUrl = env.DATABASE_URL || LOCAL_SERVER_URL;
  const amqpUrl = env.AMQP_URL || LOCAL_AMQP_URL;
  for (const [what, url, variable] of [
    ["PostgreSQL", serverUrl, "DATABASE_URL"],
    ["RabbitMQ", amqpUrl, "AMQP_URL"],
  ] as const) {
    if (!(await reachable(url))) {
      throw new Error(
        `${what} is not reachable at ${new URL(url).host}. Start it (PostgreSQL: pg_ctlcluster --skip-systemctl-redirect ` +
          `$(ls /etc/postgresql) main start; RabbitMQ: rabbitmq-server -detached) or set ${variable}.`,
      );
    }
  }
  const suffix = randomBytes(4).toString("hex");
  const name = `ptq_nextjs_e2e_${suffix}`;
  await onServer(serverUrl, `CREATE DATABASE "${name}"`);
  const databaseUrl = new URL(serverUrl);
  databaseUrl.pathname = `/${name}`;
  const amqpPrefix = `nextjs_e2e_${suffix}`;
  return {
    databaseUrl: databaseUrl.toString(),
    amqpUrl,
    amqpPrefix,
    async cleanUp() {
      await onServer(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await deleteBrokerNames(amqpUrl, amqpPrefix);
    },
  };
}

async function onServer(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Deletes what the app and the runner declared under the run's prefix (see the package's broker topology). */
async function deleteBrokerNames(amqpUrl: string, prefix: string): Promise<void> {
  const connection = await amqp.connect(amqpUrl);
  try {
    const channel = await connection.createChannel();
    for (const queue of [`${prefix}.q.default`, `${prefix}.dead`]) await channel.deleteQueue(queue);
    for (const exchange of [prefix, `${prefix}.dead`]) await channel.deleteExchange(exchange);
    await channel.close();
  } finally {
    await connection.close();
  }
}

function reachable(url: string): Promise<boolean> {
  const parsed = new URL(url);
  const port = Number(parsed.port || (parsed.protocol.startsWith("amqp") ? 5672 : 5432));
  return new Promise((resolve) => {
    const socket = tcpConnect({ host: parsed.hostname, port, timeout: 2000 });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
    socket.once("timeout", () => done(false));
  });
}

/**
 * Counts rows of the run's database, for the before/after checks: the reports, and the tasks other than the digest's
 * (its schedule fires one every 10 seconds, whatever the test does).
 */
export async function countRows(databaseUrl: string): Promise<{ reports: number; tasks: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ reports: number; tasks: number }>(
      "SELECT (SELECT count(*)::int FROM reports) AS reports, (SELECT count(*)::int FROM tasks WHERE name <> 'report-digest') AS tasks",
    );
    return rows[0]!;
  } finally {
    await client.end();
  }
}

/** One query on the run's database. */
export async function queryRows<Row extends object>(databaseUrl: string, text: string, values: unknown[]): Promise<Row[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<Row>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** Polls a query on the run's database every 100 ms until `done` holds for its rows; rejects after `timeoutMs`. */
export async function waitForRows<Row extends object>(
  databaseUrl: string,
  text: string,
  values: unknown[],
  done: (rows: Row[]) => boolean,
  what: string,
  timeoutMs = 30_000,
): Promise<Row[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await queryRows<Row>(databaseUrl, text, values);
    if (done(rows)) return rows;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last rows: ${JSON.stringify(rows)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
