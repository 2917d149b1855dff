// Shared setup of the worker tests: a database and a broker prefix per file, an enqueueing Prisma client,
// a logger that keeps its lines, a stand-in for the cleaner's "publish when due", and broker clean-up.

import amqp from "amqplib";
import pg from "pg";
import { inject } from "vitest";
import { declareExchanges, declareQueue, topology } from "../../src/wakeups/rabbitmq/topology.js";
import { encodeWakeup } from "../../src/wakeups/rabbitmq/wakeup-message.js";
import { createWorker, jsonLogger, silentLogger, taskQueue, type Logger, type TaskRegistry, type Worker, type WorkerOptions } from "../../src/index.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { testPrisma } from "../support/prisma.js";
import { uniquePrefix } from "../support/broker.js";
import { RUNS_TABLE_SQL } from "../fixtures/worker-tasks.js";

export interface LoggedLine {
  level: string;
  message: string;
  fields: Record<string, unknown>;
}

/** A logger that keeps every line (and echoes them with PTQ_DEBUG=1). */
export function recordingLogger(): Logger & { lines: LoggedLine[]; find(message: string, fields?: Record<string, unknown>): LoggedLine[] } {
  const lines: LoggedLine[] = [];
  const echo = process.env.PTQ_DEBUG ? jsonLogger("debug") : silentLogger;
  const log = (level: keyof Logger) => (message: string, fields: Record<string, unknown> = {}) => {
    lines.push({ level, message, fields });
    echo[level](message, fields);
  };
  return {
    lines,
    debug: log("debug"),
    info: log("info"),
    warn: log("warn"),
    error: log("error"),
    find: (message, fields = {}) =>
      lines.filter((line) => line.message === message && Object.entries(fields).every(([key, value]) => line.fields[key] === value)),
  };
}

/** Everything a worker test file needs; close() in afterAll. */
export class WorkerTestBed {
  readonly prefix = uniquePrefix();
  readonly amqpUrl = inject("amqpUrl");
  private readonly opened: Array<() => Promise<void>> = [];
  private constructor(
    readonly database: TestDatabase,
    readonly sql: pg.Pool,
  ) {}

  static async create(): Promise<WorkerTestBed> {
    const database = await createTestDatabase();
    const sql = new pg.Pool({ connectionString: database.url, max: 4 });
    await sql.query(RUNS_TABLE_SQL);
    return new WorkerTestBed(database, sql);
  }

  get url(): string {
    return this.database.url;
  }

  /** A Prisma client with the enqueue extension on this file's database and prefix. */
  prisma<Tasks extends TaskRegistry>(tasks: Tasks, amqpUrl: string | undefined = this.amqpUrl) {
    const client = testPrisma(this.url).$extends(taskQueue({ tasks, amqpUrl, amqpPrefix: this.prefix, logger: silentLogger }));
    this.opened.push(async () => {
      await client.$taskQueue.close();
      await client.$disconnect();
    });
    return client;
  }

  /** Creates and starts a worker on this file's database and prefix; closeAll() stops it. */
  async startWorker<Tasks extends TaskRegistry>(options: Omit<WorkerOptions<Tasks>, "databaseUrl" | "amqpUrl" | "amqpPrefix">): Promise<Worker> {
    const worker = createWorker({ databaseUrl: this.url, amqpUrl: this.amqpUrl, amqpPrefix: this.prefix, ...options });
    this.opened.unshift(() => worker.stop());
    await worker.start();
    return worker;
  }

  /** Stops the workers and closes the clients made here (workers first), then the bed itself. */
  async closeAll(queues?: string[]): Promise<void> {
    for (const close of this.opened.splice(0)) await close();
    await this.close(queues);
  }

  async row(id: string): Promise<Record<string, any>> {
    const { rows } = await this.sql.query("SELECT *, id::text AS id FROM tasks WHERE id = $1", [id]);
    if (!rows[0]) throw new Error(`no task ${id}`);
    return rows[0];
  }

  async status(id: string): Promise<string> {
    return (await this.row(id)).status;
  }

  /** Inserts a task row directly (as another app version or a raw writer would), due now unless delayMs. */
  async insertTask(name: string, payload: unknown, options: { id?: string; maxAttempts?: number; queue?: string; publishedNow?: boolean } = {}): Promise<string> {
    const id = options.id ?? crypto.randomUUID();
    await this.sql.query(
      `INSERT INTO tasks (id, name, queue, payload, max_attempts, published_at) VALUES ($1, $2, $3, $4, $5, CASE WHEN $6 THEN now() END)`,
      [
      id,
      name,
      options.queue ?? "default",
      JSON.stringify(payload),
        options.maxAttempts ?? 5,
        options.publishedNow ?? false,
      ],
    );
    return id;
  }

  /** Publishes a raw message body to the wake-up queue of `queue` (declaring it first). */
  async publishRaw(bodies: Buffer[], queue = "default"): Promise<void> {
    const model = await amqp.connect(this.amqpUrl);
    try {
      const channel = await model.createConfirmChannel();
      const names = topology(this.prefix);
      await declareExchanges(channel, names);
      await declareQueue(channel, names, queue);
      for (const body of bodies) channel.publish(names.exchange, queue, body);
      await channel.waitForConfirms();
    } finally {
      await model.close();
    }
  }

  /** Publishes wake-ups for `ids`, one message each. */
  async wake(ids: string[], queue = "default"): Promise<void> {
    await this.publishRaw(ids.map((id) => encodeWakeup([id])), queue);
  }

  /** Deletes everything declared under the prefix, drops the database. */
  async close(queues: string[] = ["default"]): Promise<void> {
    await this.sql.end();
    const model = await amqp.connect(this.amqpUrl);
    const names = topology(this.prefix);
    const channel = await model.createChannel();
    for (const queue of [...queues.map((q) => names.queueName(q)), names.deadLetterQueue]) await channel.deleteQueue(queue);
    await channel.deleteExchange(names.exchange);
    await channel.deleteExchange(names.deadLetterExchange);
    await model.close();
    await this.database.drop();
  }
}

/**
 * Stand-in for the cleaner's "publish pending tasks when due" (the cleaner is tested on its own): every 50 ms it
 * publishes wake-ups for due pending tasks with published_at NULL and marks them published.
 */
export class DuePublisher {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  private constructor(
    private readonly bed: WorkerTestBed,
    private readonly model: amqp.ChannelModel,
    private readonly channel: amqp.ConfirmChannel,
  ) {}

  static async start(bed: WorkerTestBed): Promise<DuePublisher> {
    const model = await amqp.connect(bed.amqpUrl);
    const channel = await model.createConfirmChannel();
    await declareExchanges(channel, topology(bed.prefix));
    const publisher = new DuePublisher(bed, model, channel);
    publisher.timer = setInterval(() => (publisher.running ??= publisher.tick().finally(() => (publisher.running = undefined))), 50);
    return publisher;
  }

  private async tick(): Promise<void> {
    const { rows } = await this.bed.sql.query<{ id: string; queue: string }>(
      `UPDATE tasks SET published_at = now() WHERE status = 'pending' AND run_at <= now() AND published_at IS NULL
       RETURNING id::text AS id, queue`,
    );
    const names = topology(this.bed.prefix);
    for (const { id, queue } of rows) this.channel.publish(names.exchange, queue, encodeWakeup([id]));
    if (rows.length > 0) await this.channel.waitForConfirms();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
    await this.model.close();
  }
}
