// Bad input: a worker given wrong credentials (or a missing database or table) fails start() with one clear message,
// the password hidden, having claimed nothing and left nothing open; a refused broker login fails the same way.
// An unreachable database is not a reason to give up: start() resolves, says so, and the worker runs once it is back.

import { createServer, connect, type Socket } from "node:net";
import amqp from "amqplib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { topology } from "../../src/wakeups/rabbitmq/topology.js";
import { defineTasks, openStore, TaskQueueConfigError } from "../../src/index.js";
import { createWorker, type WorkerOptions } from "../../src/worker/create-worker.js";
import { waitUntil } from "../support/wait.js";
import { TcpProxy } from "../support/tcp-proxy.js";
import { recordingLogger, WORKER_DIALECTS, WorkerTestBed } from "./harness.js";

const ran: string[] = [];
const tasks = defineTasks({ job: { payload: z.object({}), handler: async (_p, ctx) => void ran.push(ctx.task.id) } });

// The file-level tests run on PostgreSQL only: wrong credentials, a missing database and a server that stops answering are
// a server's failures (SQLite has none; MySQL's are in test/mysql/server-version.test.ts). A missing table: every dialect, below.
let bed: WorkerTestBed;
let pendingId: string;

beforeAll(async () => {
  bed = await WorkerTestBed.create();
  pendingId = await bed.insertTask("job", {});
});

afterAll(async () => {
  await bed?.close();
});

function withUrl(url: string, change: (parsed: URL) => void): string {
  const parsed = new URL(url);
  change(parsed);
  return parsed.toString();
}

/** Starts a worker that must fail; returns its error after checking that stop() is then a no-op. */
async function failedStart(options: Partial<WorkerOptions>): Promise<TaskQueueConfigError> {
  const logger = recordingLogger();
  const worker = createWorker({ tasks, databaseUrl: bed.url, amqpUrl: bed.amqpUrl, amqpPrefix: bed.prefix, logger, ...options });
  const error = await worker.start().then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  await worker.stop();
  expect(error).toBeInstanceOf(TaskQueueConfigError);
  expect(logger.find("worker started")).toEqual([]);
  return error as TaskQueueConfigError;
}

/** Nothing was declared under the worker's prefix: it never got as far as consuming. */
async function brokerUntouched(prefix: string): Promise<void> {
  const model = await amqp.connect(bed.amqpUrl);
  try {
    const channel = await model.createChannel();
    channel.on("error", () => {});
    await expect(channel.checkQueue(topology(prefix).queueName("default"))).rejects.toThrow(/NOT_FOUND/);
  } finally {
    await model.close();
  }
}

it("wrong database credentials: a clear error without the password, and the broker never touched", async () => {
  const prefix = `${bed.prefix}_creds`;
  const url = withUrl(bed.url, (u) => ((u.username = "no_such_user"), (u.password = "s3cret-pw")));
  const error = await failedStart({ databaseUrl: url, amqpPrefix: prefix });
  expect(error.message).toMatch(
    /^Invalid option "databaseUrl": the worker cannot use the database at postgresql:\/\/no_such_user:\*\*\*@[^ ]+: .*; the credentials were refused: check the user and password in databaseUrl\.$/,
  );
  expect(error.message).not.toContain("s3cret-pw");
  await brokerUntouched(prefix);
});

it("a missing database or table says what to fix", async () => {
  const noDatabase = await failedStart({ databaseUrl: withUrl(bed.url, (u) => (u.pathname = "/ptq_no_such_database")) });
  expect(noDatabase.message).toMatch(/database "ptq_no_such_database" does not exist; that database does not exist: check the database name in databaseUrl\.$/);
  const noTable = await failedStart({ table: "no_such_table" });
  expect(noTable.message).toMatch(/relation "no_such_table" does not exist; the table "no_such_table" does not exist there: apply the migration/);
  const given = openStore(
    withUrl(bed.url, (u) => (u.pathname = "/ptq_no_such_database")),
    { max: 1 },
  );
  try {
    const viaDb = await failedStart({ store: given });
    expect(viaDb.message).toMatch(/^Invalid option "store": the worker cannot use the database given as store: .*check the database name in store\.$/);
  } finally {
    await given.close();
  }
});

it("a refused broker login or virtual host fails start, hides the password and claims nothing", async () => {
  const wrongPassword = withUrl(bed.amqpUrl, (u) => (u.password = "not-the-password"));
  const login = await failedStart({ amqpUrl: wrongPassword });
  expect(login.message).toMatch(
    /^Invalid option "amqpUrl": RabbitMQ at amqp:\/\/[^:]+:\*\*\*@\S+ refused the user name or password \(ACCESS_REFUSED\): check the credentials in amqpUrl \(the AMQP_URL environment variable, or --amqp-url for task-runner\), or create that user on the broker \(rabbitmqctl add_user\)\. \(.*ACCESS_REFUSED.*\)$/,
  );
  expect(login.message).not.toContain("not-the-password");
  const vhost = await failedStart({ amqpUrl: withUrl(bed.amqpUrl, (u) => (u.pathname = "/no_such_vhost")) });
  expect(vhost.message).toContain('refused to open the virtual host "no_such_vhost" (NOT_ALLOWED): check the path of amqpUrl');
  // The due task was there all along: a worker that failed to start did not claim it.
  expect(await bed.row(pendingId)).toMatchObject({ status: "pending", attempts: 0, lease_owner: null });
  expect(ran).toEqual([]);
});

it("an unreachable database at start is logged with what to check, and the worker runs tasks once it is back", async () => {
  const db = new URL(bed.url);
  const proxy = await new TcpProxy(db.hostname, Number(db.port || 5432)).start();
  const logger = recordingLogger();
  proxy.refuse();
  const worker = createWorker({ tasks, databaseUrl: proxy.route(bed.url), logger, pollIntervalMs: 100, queues: ["default"] });
  try {
    await worker.start();
    const [line] = logger.find("database unreachable at start; the worker keeps trying");
    expect(line!.level).toBe("warn");
    expect(String(line!.fields.error)).toMatch(
      /^the worker cannot use the database at postgresql:\/\/.*; is PostgreSQL running and reachable there\? Check the host and port in databaseUrl\.$/,
    );
    proxy.restore();
    await waitUntil(async () => (await bed.status(pendingId)) === "succeeded", "the pending task to run once the database is back");
  } finally {
    await worker.stop();
    await proxy.stop();
  }
});

it("does not hang when the broker connection dies while the start check says goodbye", async () => {
  // The first connection's Connection.Close (AMQP class 10, method 50) is swallowed and the socket reset: amqplib's
  // close() would wait for the answer for ever. Later connections pass.
  const target = new URL(bed.amqpUrl);
  const sockets = new Set<Socket>();
  let connections = 0;
  let swallowed = 0;
  const server = createServer((client) => {
    const first = ++connections === 1;
    const upstream = connect({ host: target.hostname, port: Number(target.port || 5672) });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => {});
      socket.on("close", () => (sockets.delete(socket), client.destroy(), upstream.destroy()));
    }
    let swallowing = false;
    client.on("data", (chunk: Buffer) => {
      const close = chunk[0] === 1 && chunk.readUInt16BE(1) === 0 && chunk.readUInt16BE(7) === 10 && chunk.readUInt16BE(9) === 50;
      if (first && close) {
        swallowing = true;
        swallowed++;
        setTimeout(() => (client.resetAndDestroy(), upstream.destroy()), 100);
      }
      if (!swallowing) upstream.write(chunk);
    });
    upstream.on("data", (chunk) => client.write(chunk));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const broker = new URL(bed.amqpUrl);
  broker.hostname = "127.0.0.1";
  broker.port = String((server.address() as { port: number }).port);
  const logger = recordingLogger();
  const worker = createWorker({ tasks, databaseUrl: bed.url, amqpUrl: broker.toString(), amqpPrefix: `${bed.prefix}_bye`, logger, queues: ["default"] });
  try {
    const started = Date.now();
    await worker.start();
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(logger.find("worker started")).toHaveLength(1);
    expect(swallowed).toBe(1);
    expect(logger.find("consuming wake-ups")).toHaveLength(1);
  } finally {
    await worker.stop();
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const model = await amqp.connect(bed.amqpUrl);
    const channel = await model.createChannel();
    await channel.deleteQueue(topology(`${bed.prefix}_bye`).queueName("default"));
    await channel.deleteExchange(`${bed.prefix}_bye`);
    await channel.deleteExchange(topology(`${bed.prefix}_bye`).deadLetterExchange);
    await channel.deleteQueue(topology(`${bed.prefix}_bye`).deadLetterQueue);
    await model.close();
  }
});

describe.each(WORKER_DIALECTS)("a missing task table ($name)", (dialect) => {
  let other: WorkerTestBed;

  beforeAll(async () => {
    other = await WorkerTestBed.create(dialect);
  });

  afterAll(async () => {
    await other?.close();
  });

  it("fails start, naming the table and the migration to apply", async () => {
    const logger = recordingLogger();
    const worker = createWorker({ tasks, databaseUrl: other.url, amqpUrl: other.amqpUrl, amqpPrefix: other.prefix, logger, table: "no_such_table" });
    const error = await worker.start().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    await worker.stop();
    expect(error).toBeInstanceOf(TaskQueueConfigError);
    expect((error as Error).message).toContain('the table "no_such_table" does not exist there: apply the migration');
    expect(logger.find("worker started")).toEqual([]);
  });
});
