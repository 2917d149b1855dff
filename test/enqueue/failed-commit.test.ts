// A transaction that enqueues and then fails, at its COMMIT or before, in every way each dialect can fail one here:
// its task never runs unless its row committed, every id an enqueue returned runs (including one issued while the
// failing transaction was still open), and the app's client works for the next call.

import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger, taskQueue } from "../../src/index.js";
import { postgresHarness, sqliteHarness, mysqlHarness } from "../conformance/dialects.js";
import { ConformanceBed, type DialectHarness, type QueueClient } from "../conformance/harness.js";
import { readRuns } from "../conformance/run-log.js";
import { conformanceTasks } from "../conformance/tasks.js";
import { sqlitePrisma } from "../support/sqlite.js";
import { TcpProxy } from "../support/tcp-proxy.js";
import { waitUntil } from "../support/wait.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of cleanup.splice(0)) await close();
});

/** A client of any dialect with raw statements (each dialect's generated client has them). */
type RawClient = {
  $executeRawUnsafe(sql: string, ...values: unknown[]): Promise<number>;
  $queryRawUnsafe<T>(sql: string, ...values: unknown[]): Promise<T>;
};
type Client = QueueClient & RawClient;
type Plain = RawClient & { $disconnect(): Promise<void>; $transaction<T>(fn: (tx: RawClient) => Promise<T>): Promise<T> };

interface Bench {
  bed: ConformanceBed;
  /** The app's client, extended. */
  prisma: Client;
  /** A second plain client on the same database, for what another session does (kill, lock, commit first). */
  other: Plain;
  /** Work of the other session that ends only after the app's transaction did. */
  pending: Array<Promise<unknown>>;
}

interface Scenario {
  name: string;
  harness: DialectHarness;
  /** Runs once the bed is open, before the app's client exists. */
  setup?(bed: ConformanceBed, other: Plain): Promise<void>;
  /** The app's client, when the scenario needs its own (through a proxy, a short busy timeout). */
  client?(bed: ConformanceBed): Promise<Client>;
  /** Options of the failing $transaction. */
  options?: object;
  /** Inside the failing transaction, after its enqueue: what makes it fail, there or at its COMMIT. */
  breakIt(tx: Client, bench: Bench): Promise<void>;
  /** Afterwards, what puts the database back (a page limit lifted). */
  repair?(bench: Bench): Promise<unknown>;
  /** The enqueue issued while the failing transaction is open may fail too (the database is full, or busy). */
  duringMayFail?: boolean;
  /** What the app's error says. */
  failsWith?: RegExp;
  /** The connection was lost during COMMIT: the app gets an error, and its task runs exactly when its row committed. */
  ambiguous?: boolean;
}

/** A child process that holds a read lock on a SQLite file once for holdMs; resolves when it holds it, to when it is gone. */
async function readLockOnce(file: string, holdMs: number): Promise<{ exited: Promise<unknown> }> {
  const child = spawn(process.execPath, ["--import", "tsx", "test/sqlite/fixtures/lock-holder.ts"], {
    cwd: root,
    env: { ...process.env, FILE: file, LOCK: "read", HOLD_MS: String(holdMs), ONCE: "1" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  cleanup.push(async () => (child.kill("SIGKILL"), await exited));
  await new Promise((resolve) => child.stdout.once("data", resolve));
  return { exited };
}
let readerGone: Promise<unknown> = Promise.resolve();

const sqliteFile = (bed: ConformanceBed) => bed.url.replace(/^file:/, "");

/** The app's client on `url` of the bed's dialect, extended like bed.prisma(). */
function extended(bed: ConformanceBed, base: { $extends(extension: unknown): unknown; $disconnect(): Promise<void> }): Client {
  const client = base.$extends(taskQueue({ tasks: conformanceTasks, amqpUrl: bed.amqpUrl, amqpPrefix: bed.prefix, logger: silentLogger })) as Client;
  cleanup.unshift(async () => {
    await client.$taskQueue.close();
    await client.$disconnect();
  });
  return client;
}

/** The app's client going through a proxy whose severAfter() loses the connection mid-statement. */
async function throughProxy(bed: ConformanceBed, proxies: TcpProxy[]): Promise<Client> {
  const url = new URL(bed.url);
  const proxy = await new TcpProxy(url.hostname, Number(url.port)).start();
  proxies.push(proxy);
  cleanup.push(() => proxy.stop());
  return extended(bed, bed.dialect.prismaClient(proxy.route(bed.url)));
}

/** Until `check` (a query of another session) says the failing transaction is waiting for a lock. */
const waitingForLock = (other: Plain, sql: string) =>
  waitUntil(async () => Number((await other.$queryRawUnsafe<Array<{ n: unknown }>>(sql))[0]!.n) > 0, "the transaction to wait for a lock");

const postgresProxies: TcpProxy[] = [];
const mysqlProxies: TcpProxy[] = [];

const SCENARIOS: Scenario[] = [
  {
    name: "a deferred foreign key checked at COMMIT",
    harness: sqliteHarness,
    setup: async (_bed, other) => void (await other.$executeRawUnsafe(`CREATE TABLE guard (ref TEXT REFERENCES reports(id) DEFERRABLE INITIALLY DEFERRED)`)),
    breakIt: async (tx) => void (await tx.$executeRawUnsafe(`INSERT INTO guard VALUES ('no-such-report')`)),
  },
  {
    name: "SQLITE_BUSY at COMMIT (a reader holds a rollback-journal file)",
    harness: sqliteHarness,
    client: async (bed) => {
      const raw = new Database(sqliteFile(bed));
      raw.pragma("journal_mode = DELETE");
      raw.close();
      // The reader is there while the client readies itself, so the file keeps its rollback journal.
      readerGone = (await readLockOnce(sqliteFile(bed), 1500)).exited;
      return extended(bed, sqlitePrisma(bed.url, { timeout: 100 }));
    },
    breakIt: async () => {}, // its COMMIT waits out the busy timeout behind the reader
    repair: () => readerGone,
    duringMayFail: true,
    failsWith: /SocketTimeout|busy|locked/i,
  },
  {
    name: "a full database (max_page_count)",
    harness: sqliteHarness,
    breakIt: async (tx) => {
      const { pages } = (await tx.$queryRawUnsafe<Array<{ pages: unknown }>>(`SELECT page_count AS pages FROM pragma_page_count()`))[0]!;
      await tx.$executeRawUnsafe(`PRAGMA max_page_count = ${Number(pages)}`);
      await tx.$executeRawUnsafe(`INSERT INTO reports (id, status, result) SELECT hex(randomblob(16)), 'filler', zeroblob(100000) FROM (SELECT 1 UNION SELECT 2)`);
    },
    repair: async ({ prisma }) => void (await prisma.$executeRawUnsafe(`PRAGMA max_page_count = 1073741823`)),
    duringMayFail: true,
  },
  {
    name: "an error thrown inside the transaction",
    harness: sqliteHarness,
    breakIt: async () => {
      throw new Error("the app's own error");
    },
  },
  {
    name: "a deferred constraint checked at COMMIT",
    harness: postgresHarness,
    setup: async (_bed, other) => void (await other.$executeRawUnsafe(`CREATE TABLE guard (ref uuid REFERENCES reports(id) DEFERRABLE INITIALLY DEFERRED)`)),
    breakIt: async (tx) => void (await tx.$executeRawUnsafe(`INSERT INTO guard VALUES (gen_random_uuid())`)),
  },
  {
    name: "the connection killed just before COMMIT",
    harness: postgresHarness,
    breakIt: async (tx, { other }) => {
      const { pid } = (await tx.$queryRawUnsafe<Array<{ pid: number }>>(`SELECT pg_backend_pid() AS pid`))[0]!;
      await other.$queryRawUnsafe(`SELECT pg_terminate_backend($1::int)`, pid);
    },
  },
  {
    name: "the connection lost during COMMIT",
    harness: postgresHarness,
    client: (bed) => throughProxy(bed, postgresProxies),
    breakIt: async () => void postgresProxies.at(-1)!.severAfter("COMMIT"),
    ambiguous: true,
  },
  {
    name: "a serialization failure",
    harness: postgresHarness,
    options: { isolationLevel: "Serializable" },
    breakIt: async (tx, { other }) => {
      await tx.$queryRawUnsafe(`SELECT count(*) FROM reports`);
      await other.$transaction(async (first) => {
        await first.$executeRawUnsafe(`SET TRANSACTION ISOLATION LEVEL SERIALIZABLE`);
        await first.$queryRawUnsafe(`SELECT count(*) FROM reports`);
        await first.$executeRawUnsafe(`INSERT INTO reports (id, status) VALUES (gen_random_uuid(), 'first')`);
      });
      await tx.$executeRawUnsafe(`INSERT INTO reports (id, status) VALUES (gen_random_uuid(), 'second')`);
    },
  },
  {
    name: "a deadlock",
    harness: postgresHarness,
    setup: async (_bed, other) =>
      void (await other.$executeRawUnsafe(
        `INSERT INTO reports (id, status) VALUES ('00000000-0000-4000-8000-00000000000a', 'a'), ('00000000-0000-4000-8000-00000000000b', 'b')`,
      )),
    breakIt: async (tx, { other, pending }) => {
      const [a, b] = ["00000000-0000-4000-8000-00000000000a", "00000000-0000-4000-8000-00000000000b"];
      await tx.$executeRawUnsafe(`UPDATE reports SET status = 'app' WHERE id = '${a}'`);
      let lockedB!: () => void;
      const hasB = new Promise<void>((resolve) => (lockedB = resolve));
      const first = other.$transaction(async (session) => {
        await session.$executeRawUnsafe(`UPDATE reports SET status = 'other' WHERE id = '${b}'`);
        lockedB();
        // The app waits first, so its deadlock check fires first and it is the one aborted.
        await waitingForLock(other, `SELECT count(*) AS n FROM pg_locks WHERE NOT granted AND locktype = 'transactionid'`);
        await session.$executeRawUnsafe(`UPDATE reports SET status = 'other' WHERE id = '${a}'`);
      });
      pending.push(first);
      await hasB;
      await tx.$executeRawUnsafe(`UPDATE reports SET status = 'app' WHERE id = '${b}'`);
    },
    failsWith: /deadlock/i,
  },
  {
    name: "the connection killed just before COMMIT",
    harness: mysqlHarness,
    breakIt: async (tx, { other }) => {
      const { id } = (await tx.$queryRawUnsafe<Array<{ id: unknown }>>(`SELECT CONNECTION_ID() AS id`))[0]!;
      await other.$executeRawUnsafe(`KILL ${Number(id)}`);
    },
  },
  {
    name: "the connection lost during COMMIT",
    harness: mysqlHarness,
    client: (bed) => throughProxy(bed, mysqlProxies),
    breakIt: async () => void mysqlProxies.at(-1)!.severAfter("COMMIT"),
    ambiguous: true,
  },
  {
    name: "a deadlock",
    harness: mysqlHarness,
    setup: async (_bed, other) => void (await other.$executeRawUnsafe(`INSERT INTO reports (id, status) VALUES ('a', 'a'), ('b', 'b')`)),
    breakIt: async (tx, { other, pending }) => {
      await tx.$executeRawUnsafe(`UPDATE reports SET status = 'app' WHERE id = 'a'`);
      const blocked = other.$transaction(async (first) => {
        // More rows changed than the app's transaction: InnoDB rolls back the lighter one, the app's.
        await first.$executeRawUnsafe(`INSERT INTO reports (id, status) SELECT UUID(), 'weight' FROM information_schema.COLLATIONS LIMIT 20`);
        await first.$executeRawUnsafe(`UPDATE reports SET status = 'other' WHERE id = 'b'`);
        await first.$executeRawUnsafe(`UPDATE reports SET status = 'other' WHERE id = 'a'`);
      });
      // Its last statement is still running: it can only be waiting for the app's lock on 'a'.
      await waitingForLock(other, `SELECT count(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE 'UPDATE reports SET status = ''other'' WHERE id = ''a''%'`);
      pending.push(blocked);
      await tx.$executeRawUnsafe(`UPDATE reports SET status = 'app' WHERE id = 'b'`);
    },
    failsWith: /deadlock/i,
  },
];

describe.each(SCENARIOS.map((scenario) => [`${scenario.harness.name}: ${scenario.name}`, scenario] as const))("%s", (_title, scenario) => {
  it("runs exactly the tasks whose rows committed, and the client works for the next call", { timeout: 60_000 }, async () => {
    const bed = await ConformanceBed.open(scenario.harness);
    cleanup.push(() => bed.close());
    const other = scenario.harness.prismaClient(bed.url) as unknown as Plain;
    cleanup.push(() => other.$disconnect());
    await scenario.setup?.(bed, other);
    const prisma = scenario.client ? await scenario.client(bed) : (bed.prisma() as Client);
    const bench: Bench = { bed, prisma, other, pending: [] };

    const written: string[] = [];
    const returned: string[] = [];
    const enqueueAlone = async () => {
      const task = await prisma.task.enqueue("run", { ms: 0 }).catch(() => undefined); // failing is allowed; vanishing is not
      if (task) returned.push(task.id);
    };
    let opened!: () => void;
    const isOpen = new Promise<void>((resolve) => (opened = resolve));
    let proceed!: () => void;
    const mayProceed = new Promise<void>((resolve) => (proceed = resolve));
    const failing = prisma
      .$transaction(async (tx) => {
        written.push((await tx.task.enqueue("run", { ms: 0 })).id);
        opened();
        await mayProceed;
        await scenario.breakIt(tx as Client, bench);
      }, scenario.options)
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    await isOpen;
    // Another caller's enqueue while the failing transaction is open (on SQLite it waits for that transaction's end).
    const during = enqueueAlone();
    proceed();
    const failure = await failing;
    expect(failure, "the transaction failed").toBeInstanceOf(Error);
    console.log(
      `${scenario.harness.name}, ${scenario.name}: ${String((failure as Error).message)
        .split("\n")
        .filter(Boolean)
        .at(-1)}`,
    );
    if (scenario.failsWith) expect((failure as Error).message).toMatch(scenario.failsWith);
    await Promise.all([during, ...bench.pending]);
    if (scenario.duringMayFail !== true) expect(returned.length, "the enqueue issued while the transaction was open returned an id").toBe(1);
    await scenario.repair?.(bench);
    await enqueueAlone();
    // The client works for the next call: a transaction commits, and its task runs.
    returned.push((await prisma.$transaction(async (tx) => tx.task.enqueue("run", { ms: 0 }))).id);

    await bed.worker();
    await bed.cleaner({ republishAfterMs: 200, unpublishedGraceMs: 100 }).start();
    await waitUntil(
      async () => (await Promise.all(returned.map((id) => bed.store.findTask(id)))).every((task) => task?.status === "succeeded"),
      "every returned task to succeed",
      20_000,
    );
    const runs = readRuns(bed.runLog);
    for (const id of returned) expect(runs.get(id)?.filter((event) => event.e === "start").length, `returned task ${id} runs once`).toBe(1);
    const row = await bed.store.findTask(written[0]!);
    if (scenario.ambiguous && row) {
      // Its COMMIT reached the server before the connection went: committed, so it runs (the app's error notwithstanding).
      await waitUntil(async () => (await bed.store.findTask(written[0]!))?.status === "succeeded", "the committed task to run", 20_000);
    } else {
      expect(row, "the failed transaction's task has no row").toBeUndefined();
      expect(runs.has(written[0]!), "the failed transaction's task never ran").toBe(false);
    }
  });
});
