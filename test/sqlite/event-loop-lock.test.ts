// The store's own SQLite connection never holds the file's write lock while other code of the process runs: a client
// of the app in the same process (Prisma's adapter) waits for that lock by sleeping inside the event loop, so a lock
// held across a turn, or across another caller's promise callbacks, would stall both for the whole busy timeout. An
// intruder connection with no busy timeout tries to take the lock from every turn and from chains of promise callbacks
// while each operation of several statements runs: it must never find the lock taken.

import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../src/index.js";
import type { PreparedTask } from "../../src/store/enqueue-rows.js";
import type { ClaimLimits } from "../../src/store/queue-controls.js";
import { uuidv7 } from "../../src/uuid.js";
import { createSqliteDatabase, type SqliteTestDatabase } from "../support/sqlite.js";

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

/** Another connection of this process that tries BEGIN IMMEDIATE (then ROLLBACK) from every turn and promise callback. */
function intruder(path: string) {
  const other = new Database(path, { timeout: 0 });
  let running = true;
  let tries = 0;
  const busy: string[] = [];
  const attempt = (where: string) => {
    tries += 1;
    try {
      other.prepare("BEGIN IMMEDIATE").run();
      other.prepare("ROLLBACK").run();
    } catch (error) {
      if (!String((error as { code?: unknown }).code).startsWith("SQLITE_BUSY")) throw error;
      busy.push(where);
    }
  };
  const hops = async (count: number) => {
    for (let i = 0; i < count && running; i++) {
      attempt("promise callback");
      await Promise.resolve();
    }
  };
  const turn = () => {
    if (!running) return;
    attempt("turn");
    void hops(30);
    setImmediate(turn);
  };
  setImmediate(turn);
  return {
    /** Starts a chain of promise callbacks now, to run between those of whatever starts next. */
    poke: () => void hops(30),
    stop() {
      running = false;
      other.close();
      return { tries, busy };
    },
  };
}

function task(queue = "default"): PreparedTask {
  return { id: uuidv7(), name: "work", queue, json: "{}", priority: 0, delayMs: 0, runAt: null, maxAttempts: 3, key: null, concurrencyKey: null };
}

async function insert(store: Store, rows: PreparedTask[]): Promise<void> {
  const request = store.insertTasks(rows, false);
  await request.read(await request.request);
}

const filter = (queues: string[], limits?: ClaimLimits) => ({ owner: "w1", leaseMs: 30_000, names: ["work"], queues, ...(limits && { limits }) });

/** Each operation that writes with several statements in one transaction, run `ROUNDS` times. */
const OPERATIONS: Record<string, (store: Store) => Promise<unknown>> = {
  "delete on success (the deletion and its tally)": async (store) => {
    const rows = [task(), task()];
    await insert(store, rows);
    await store.claimByIds(
      rows.map((row) => row.id),
      filter(["default"]),
    );
    return store.deleteSucceeded(
      "w1",
      rows.map((row) => row.id),
    );
  },
  "prune (the deletion, its tally, the tallies' own prune)": (store) => store.prune({ retentionMs: 0, limit: 100 }),
  "resume a queue": async (store) => {
    await store.pauseQueue("held");
    return store.resumeQueue("held", 10);
  },
  "a limited queue's claim of due tasks": async (store) => {
    await insert(store, [task("limited"), task("limited")]);
    return store.claimDue(10, filter(["limited"], { limited: { concurrency: 1000, rateLimit: { starts: 1000, perMs: 1000 } } }));
  },
  "a limited queue's claim by ids": async (store) => {
    const rows = [task("limited"), task("limited")];
    await insert(store, rows);
    return store.claimByIds(
      rows.map((row) => row.id),
      filter(["limited"], { limited: { concurrency: 1000, tasks: { work: 1000 } } }),
    );
  },
  "a schedule's slot fired with its task, as the cleaner does": async (store) => {
    const [state] = await store.syncSchedules([{ schedule: "work#each", taskName: "work", cron: "* * * * *", timeZone: "UTC" }]);
    const slot = new Date(Math.max(state!.lastSlot.getTime(), Date.now()) + 60_000 * Math.ceil(Math.random() * 1e6));
    const row = task();
    return store.transaction(async (tx) => {
      if (!(await tx.claimScheduleSlot("work#each", slot, row.id))) return false;
      await insert(tx, [row]);
      await tx.advanceSchedule("work#each", slot);
      return true;
    });
  },
};

const ROUNDS = 15;

describe("SQLite: the store's transactions and the event loop", () => {
  let database: SqliteTestDatabase;
  let store: Store;

  it.each(Object.keys(OPERATIONS))("%s: no other code runs while the write lock is held", async (name) => {
    database = await createSqliteDatabase();
    store = openStore(database.url);
    cleanup.push(
      () => database.drop(),
      () => store.close(),
    );
    await store.now(); // the connection is open before the intruder starts
    const watch = intruder(database.path);
    try {
      for (let round = 0; round < ROUNDS; round++) {
        await new Promise((resolve) => setImmediate(resolve)); // a turn for the intruder
        watch.poke();
        await OPERATIONS[name]!(store);
      }
    } finally {
      const { tries, busy } = watch.stop();
      expect(tries, "the intruder ran").toBeGreaterThan(ROUNDS);
      expect(busy, "times the intruder found the lock held by the store").toEqual([]);
    }
  });
});
