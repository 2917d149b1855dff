// Shared setup of the worker tests: a database of a dialect, a broker prefix, the app's client, a started worker, a
// logger that keeps its lines, a stand-in for the cleaner's "publish when due", and clean-up.

import amqp from "amqplib";
import pg from "pg";
import { afterAll, beforeAll, inject } from "vitest";
import { declareExchanges, topology } from "../../src/wakeups/rabbitmq/topology.js";
import { encodeWakeup } from "../../src/wakeups/rabbitmq/wakeup-message.js";
import {
  createWorker,
  jsonLogger,
  openStore,
  silentLogger,
  taskQueue,
  type Logger,
  type Store,
  type TaskRegistry,
  type Worker,
  type WorkerOptions,
} from "../../src/index.js";
import { prepared, sendInsert } from "../conformance/store/bed.js";
import { postgresStoreDialect, STORE_DIALECTS, type RawConnection, type StoreDialect } from "../conformance/store/dialects.js";
import { testPrisma } from "../support/prisma.js";
import { publishBodies, uniquePrefix } from "../support/broker.js";
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
  const log =
    (level: keyof Logger) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      lines.push({ level, message, fields });
      echo[level](message, fields);
    };
  return {
    lines,
    debug: log("debug"),
    info: log("info"),
    warn: log("warn"),
    error: log("error"),
    find: (message, fields = {}) => lines.filter((line) => line.message === message && Object.entries(fields).every(([key, value]) => line.fields[key] === value)),
  };
}

/** Everything a worker test file needs, on one dialect (PostgreSQL unless asked); close() in afterAll. */
export class WorkerTestBed {
  readonly prefix = uniquePrefix();
  readonly amqpUrl = inject("amqpUrl");
  private readonly opened: Array<() => Promise<void>> = [];
  private raw: RawConnection | undefined;
  private constructor(
    readonly dialect: StoreDialect,
    readonly database: { url: string; drop(): Promise<void> },
    /** A store of the test's own on the database: how the bed reads and writes task rows on every dialect. */
    readonly store: Store,
    private readonly pool: pg.Pool | undefined,
  ) {}

  static async create(dialect: StoreDialect = postgresStoreDialect): Promise<WorkerTestBed> {
    const database = await dialect.createDatabase();
    const store = openStore(database.url, { max: 2 });
    let pool: pg.Pool | undefined;
    if (dialect.name === "postgresql") {
      pool = new pg.Pool({ connectionString: database.url, max: 4 });
      await pool.query(RUNS_TABLE_SQL);
    }
    return new WorkerTestBed(dialect, database, store, pool);
  }

  get url(): string {
    return this.database.url;
  }

  /** A pg pool on the database, for the tests that read PostgreSQL itself (and the task_runs table of workerTasks). */
  get sql(): pg.Pool {
    if (!this.pool) throw new Error(`this test reads PostgreSQL directly; it cannot run on ${this.dialect.name}`);
    return this.pool;
  }

  /** A Prisma client of this dialect with the enqueue extension, on this file's database and prefix. */
  prisma<Tasks extends TaskRegistry>(tasks: Tasks, amqpUrl: string | undefined = this.amqpUrl) {
    // Typed as the PostgreSQL test client: every dialect's generated test client has the same models.
    const base = this.dialect.prismaClient(this.url) as unknown as ReturnType<typeof testPrisma>;
    const client = base.$extends(taskQueue({ tasks, amqpUrl, amqpPrefix: this.prefix, logger: silentLogger }));
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

  /** The task's row as the store reads it, under the table's column names; fails when there is none. */
  async row(id: string) {
    const task = await this.store.findTask(id);
    if (!task) throw new Error(`no task ${id}`);
    return {
      id: task.id,
      name: task.name,
      queue: task.queue,
      payload: task.payload,
      status: task.status,
      priority: task.priority,
      run_at: task.runAt,
      attempts: task.attempts,
      max_attempts: task.maxAttempts,
      lease_owner: task.leaseOwner,
      lease_expires_at: task.leaseExpiresAt,
      last_error: task.lastError,
      errors: task.errors,
      result: task.result,
      key: task.key,
      created_at: task.createdAt,
      updated_at: task.updatedAt,
      finished_at: task.finishedAt,
      published_at: task.publishedAt,
      finished_by: task.finishedBy,
    };
  }

  async status(id: string): Promise<string> {
    return (await this.row(id)).status;
  }

  /** How many tasks of the database (of the task `name`, when given) have `status`, as the store counts them. */
  async countStatus(status: string, name?: string): Promise<number> {
    const counts = await this.store.countTasks();
    return counts.filter((row) => row.status === status && (name === undefined || row.name === name)).reduce((sum, row) => sum + row.count, 0);
  }

  /** Inserts a task row through the store (as another app version would write it), due now. */
  async insertTask(name: string, payload: unknown, options: { id?: string; maxAttempts?: number; queue?: string; publishedNow?: boolean } = {}): Promise<string> {
    const row = prepared({ id: options.id, name, payload, queue: options.queue, maxAttempts: options.maxAttempts });
    await sendInsert(this.store, [row], options.publishedNow ?? false);
    return row.id;
  }

  /** Runs a statement on a connection of the test's own (what no store operation does: another worker taking a lease). */
  async exec(sql: string): Promise<void> {
    this.raw ??= await this.dialect.raw(this.url);
    await this.raw.exec(sql);
  }

  /** Publishes a raw message body to the wake-up queue of `queue` (declaring it first). */
  async publishRaw(bodies: Buffer[], queue = "default"): Promise<void> {
    await publishBodies(this.amqpUrl, this.prefix, bodies, queue);
  }

  /** Publishes wake-ups for `ids`, one message each. */
  async wake(ids: string[], queue = "default"): Promise<void> {
    await this.publishRaw(
      ids.map((id) => encodeWakeup([id])),
      queue,
    );
  }

  /** Deletes everything declared under the prefix, closes the bed's connections, drops the database. */
  async close(queues: string[] = ["default"]): Promise<void> {
    await this.store.close();
    await this.pool?.end();
    await this.raw?.close();
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

/** A bed, the app's client and a started worker, made before a describe's tests and closed after them. */
export interface WorkerFixture<Tasks extends TaskRegistry> {
  bed: WorkerTestBed;
  prisma: ReturnType<typeof WorkerTestBed.prototype.prisma<Tasks>>;
  worker: Worker;
  logger: ReturnType<typeof recordingLogger>;
}

/**
 * Registers, in the current describe (or file), a bed on `dialect` with the app's client and a worker of `tasks`
 * started on it (given the app's client when `transactional`); the fields are set once the tests run.
 */
export function workerFixture<Tasks extends TaskRegistry>(
  tasks: Tasks,
  options: { dialect?: StoreDialect; transactional?: boolean; worker?: Partial<Omit<WorkerOptions<Tasks>, "tasks" | "prisma" | "logger">>; queues?: string[] } = {},
): WorkerFixture<Tasks> {
  const fixture = { logger: recordingLogger() } as WorkerFixture<Tasks>;
  beforeAll(async () => {
    fixture.bed = await WorkerTestBed.create(options.dialect);
    fixture.prisma = fixture.bed.prisma(tasks);
    const worker = { tasks, logger: fixture.logger, ...options.worker } as Omit<WorkerOptions<Tasks>, "databaseUrl" | "amqpUrl" | "amqpPrefix">;
    if (options.transactional) Object.assign(worker, { prisma: fixture.prisma });
    fixture.worker = await fixture.bed.startWorker(worker);
  });
  afterAll(async () => {
    await fixture.bed?.closeAll(options.queues);
  });
  return fixture;
}

/** The dialects the worker's tests of store behaviour run on. */
export const WORKER_DIALECTS: readonly StoreDialect[] = STORE_DIALECTS;

/**
 * Stand-in for the cleaner's "publish pending tasks when due" (the cleaner is tested on its own): every 50 ms it marks
 * the due pending tasks nobody published (findUnpublished without grace) published, and publishes their wake-ups.
 */
export class DuePublisher {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private failure: Error | undefined;

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
    publisher.timer = setInterval(() => {
      // A failed round is kept for stop() to throw, so a broken publisher fails the test that used it.
      publisher.running ??= publisher
        .tick()
        .catch((error: unknown) => void (publisher.failure ??= new Error("a round of the due publisher failed", { cause: error })))
        .finally(() => (publisher.running = undefined));
    }, 50);
    return publisher;
  }

  private async tick(): Promise<void> {
    const due = await this.bed.store.findUnpublished({ graceMs: 0, limit: 1000 });
    if (due.length === 0) return;
    await this.bed.store.markPublished(due.map((task) => task.id));
    const names = topology(this.bed.prefix);
    for (const { id, queue } of due) this.channel.publish(names.exchange, queue, encodeWakeup([id]));
    await this.channel.waitForConfirms();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
    await this.model.close();
    if (this.failure !== undefined) throw this.failure;
  }
}
