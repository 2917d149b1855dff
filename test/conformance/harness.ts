// What the conformance suite needs from each dialect's tests (a fresh database, a Prisma client of that dialect, how
// its workers are woken) and the bed every case runs on: that database, a store of the queue (broken on purpose when
// asked), a run log, workers in this process or in child processes, a cleaner, and clean-up of all of it.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp from "amqplib";
import {
  createCleaner,
  createWorker,
  openStore,
  silentLogger,
  taskQueue,
  type Cleaner,
  type CleanerOptions,
  type Store,
  type Worker,
  type WorkerOptions,
} from "../../src/index.js";
import type { WakeupsChoice } from "../../src/naming-options.js";
import { notifyChannel } from "../../src/wakeups/notify/notify-channel.js";
import { encodeWakeup } from "../../src/wakeups/rabbitmq/wakeup-message.js";
import { topology } from "../../src/wakeups/rabbitmq/topology.js";
import { publishBodies, uniquePrefix } from "../support/broker.js";
import { WorkerProcess } from "../support/worker-process.js";
import { brokenStore, type BrokenKind } from "./broken-stores.js";
import type { RawConnection, StoreDialect } from "./store/dialects.js";
import { conformanceTasks, plainTasks } from "./tasks.js";

/** The part of a generated Prisma client the cases use. */
export interface ConformancePrisma {
  $extends(extension: unknown): unknown;
  $disconnect(): Promise<void>;
}

/** One dialect, as its tests reach it. */
export interface DialectHarness {
  /** The harness's name: "postgresql + NOTIFY". */
  name: string;
  /** The dialect as the store-level suite reaches it (its test connection sees who waits on a lock). */
  store: StoreDialect;
  /** A fresh database with the task table and the tests' business tables (reports). */
  createDatabase(): Promise<{ url: string; drop(): Promise<void> }>;
  /** A plain Prisma client of this dialect on `url`. */
  prismaClient(url: string): ConformancePrisma;
  /** RabbitMQ for wake-ups in this dialect's tests; undefined when its workers are woken without a broker. */
  amqpUrl: string | undefined;
  /** The wake-up transport asked for; undefined: the default for the dialect and amqpUrl. */
  wakeups?: WakeupsChoice;
}

/** The extended client the cases enqueue through (typed loosely: each dialect has its own generated client). */
export type QueueClient = {
  task: {
    enqueue(name: string, payload: unknown, options?: object): Promise<{ id: string; created: boolean; runAt: Date }>;
    enqueueMany(items: Array<{ name: string; payload: unknown; options?: object }>): Promise<Array<{ id: string }>>;
  };
  report: { count(args?: object): Promise<number> };
  $transaction<T>(fn: (tx: QueueClient) => Promise<T>, options?: object): Promise<T>;
  $taskQueue: { flush(): Promise<void>; close(): Promise<void> };
  $disconnect(): Promise<void>;
};

export class ConformanceBed {
  readonly prefix = uniquePrefix();
  readonly runLog = mkdtempSync(join(tmpdir(), "ptq-conformance-"));
  private readonly closers: Array<() => Promise<void>> = [];
  private raw: RawConnection | undefined;

  private constructor(
    readonly dialect: DialectHarness,
    readonly url: string,
    readonly store: Store,
    private readonly real: Store,
    readonly broken: BrokenKind | undefined,
    private readonly drop: () => Promise<void>,
  ) {
    process.env.CONFORMANCE_RUN_LOG = this.runLog;
  }

  /** A fresh database of `dialect`, with a store that is `broken` when asked. */
  static async open(dialect: DialectHarness, broken?: BrokenKind): Promise<ConformanceBed> {
    const database = await dialect.createDatabase();
    const real = openStore(database.url, { max: 4 });
    const bed = new ConformanceBed(dialect, database.url, broken ? brokenStore(real, broken) : real, real, broken, () => database.drop());
    bed.closers.push(() => real.close());
    return bed;
  }

  get amqpUrl(): string | undefined {
    return this.dialect.amqpUrl;
  }

  /** The app's client: this dialect's Prisma client extended with the conformance tasks, on this bed's prefix. */
  prisma(): QueueClient {
    const base = this.dialect.prismaClient(this.url);
    const client = base.$extends(
      taskQueue({ tasks: conformanceTasks, amqpUrl: this.amqpUrl, amqpPrefix: this.prefix, wakeups: this.dialect.wakeups, logger: silentLogger }),
    ) as QueueClient;
    this.closers.unshift(async () => {
      await client.$taskQueue.close();
      await client.$disconnect();
    });
    return client;
  }

  /** A started worker in this process on this bed's store. */
  async worker(options: Partial<WorkerOptions<typeof conformanceTasks>> = {}): Promise<Worker> {
    const worker = createWorker({
      tasks: options.prisma ? conformanceTasks : plainTasks,
      store: this.store,
      amqpUrl: this.amqpUrl,
      amqpPrefix: this.prefix,
      wakeups: this.dialect.wakeups,
      logger: silentLogger,
      pollIntervalMs: 100,
      ...options,
    });
    this.closers.unshift(() => worker.stop());
    await worker.start();
    return worker;
  }

  /** A worker in a child process, on a store of its own (broken the same way as this bed's). */
  async spawnWorker(name: string, env: Record<string, string> = {}): Promise<WorkerProcess> {
    const child = await WorkerProcess.start(
      {
        CONFORMANCE_DATABASE_URL: this.url,
        CONFORMANCE_AMQP_URL: this.amqpUrl ?? "",
        CONFORMANCE_PREFIX: this.prefix,
        CONFORMANCE_WAKEUPS: this.dialect.wakeups ?? "",
        CONFORMANCE_BROKEN: this.broken ?? "",
        CONFORMANCE_RUN_LOG: this.runLog,
        CONFORMANCE_WORKER: name,
        ...env,
      },
      "test/conformance/worker-child.ts",
    );
    this.closers.unshift(() => child.kill());
    return child;
  }

  /** A cleaner in this process on this bed's store (not started). */
  cleaner(options: Partial<CleanerOptions<typeof conformanceTasks>> = {}): Cleaner {
    const cleaner = createCleaner({
      tasks: conformanceTasks,
      store: this.store,
      amqpUrl: this.amqpUrl,
      amqpPrefix: this.prefix,
      wakeups: this.dialect.wakeups,
      logger: silentLogger,
      intervalMs: 100,
      ...options,
    });
    this.closers.unshift(() => cleaner.stop());
    return cleaner;
  }

  /**
   * Resolves once a writer of this bed's database is held up by another transaction's lock, as the database shows it
   * (see RawConnection.writerBlocked); fails after `timeoutMs`.
   */
  async writerBlocked(timeoutMs = 15_000): Promise<void> {
    if (!this.raw) {
      const raw = (this.raw = await this.dialect.store.raw(this.url));
      this.closers.push(() => raw.close());
    }
    const deadline = Date.now() + timeoutMs;
    while (!(await this.raw.writerBlocked())) {
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for a writer to wait for another transaction's lock`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /**
   * Publishes `copies` wake-ups for each id (one message per copy, each id's copies back to back, so that with two
   * consumers they reach both at once), when this dialect's tests use a broker; with NOTIFY, as many notifications.
   */
  async wake(ids: readonly string[], copies = 1, queue = "default"): Promise<void> {
    if (this.dialect.wakeups === "notify") {
      for (const id of ids) for (let copy = 0; copy < copies; copy++) await this.real.notifications!.notify(notifyChannel(this.prefix), queue, [id]);
      return;
    }
    if (!this.amqpUrl) return;
    await publishBodies(
      this.amqpUrl,
      this.prefix,
      ids.flatMap((id) => Array.from({ length: copies }, () => encodeWakeup([id]))),
      queue,
    );
  }

  async close(): Promise<void> {
    for (const close of this.closers.splice(0)) await close();
    if (this.amqpUrl) await deleteBrokerNames(this.amqpUrl, this.prefix);
    rmSync(this.runLog, { recursive: true, force: true });
    await this.drop();
  }
}

/** Deletes the exchanges and queues declared under `prefix`. */
async function deleteBrokerNames(amqpUrl: string, prefix: string): Promise<void> {
  const model = await amqp.connect(amqpUrl);
  try {
    const channel = await model.createChannel();
    const names = topology(prefix);
    for (const queue of [names.queueName("default"), names.deadLetterQueue]) await channel.deleteQueue(queue);
    await channel.deleteExchange(names.exchange);
    await channel.deleteExchange(names.deadLetterExchange);
  } finally {
    await model.close();
  }
}
