// A claim by ids of a queue with a limit per key, when one of its ids becomes claimable while the claim runs: it is
// read under the queue's lock not yet due (or not pending), and made due (as a timer that fires on the dot, a retry's
// backoff ending, a release by another worker would) before the claim's next statement. The claim must not take it:
// only the ids chosen under the lock, counted against the limits, may start. Each dialect's own store, on a connection
// that makes the task due right after the claim's read of the ids (a statement of the store's own, run now, in the
// claim's transaction), so the race is the same every time.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../src/index.js";
import { mysqlParts } from "../../src/dialects/mysql/store.js";
import { ownDb as mysqlOwnDb } from "../../src/dialects/mysql/own-db.js";
import { mysqlTable } from "../../src/dialects/mysql/table.js";
import { postgresParts } from "../../src/dialects/postgres/store.js";
import { ownDb as pgOwnDb } from "../../src/dialects/postgres/own-db.js";
import { pgTable } from "../../src/dialects/postgres/table.js";
import { sqliteFilePath } from "../../src/dialects/sqlite/file-url.js";
import { SqliteFileDb } from "../../src/dialects/sqlite/own-db.js";
import { sqliteParts } from "../../src/dialects/sqlite/store.js";
import { sqliteTable } from "../../src/dialects/sqlite/table.js";
import type { Db, OwnDb } from "../../src/store/db.js";
import { DialectStore } from "../../src/store/dialect-store.js";
import type { ClaimLimits } from "../../src/store/queue-controls.js";
import { taskTable } from "../../src/store/task-table.js";
import { filterFor, prepared, sendInsert } from "../conformance/store/bed.js";
import { STORE_DIALECTS } from "../conformance/store/dialects.js";

/** One slot per key of "mail" in the queue "default". */
const LIMITS: ClaimLimits = { default: { tasks: { mail: 1 } } };
const limitedFilter = (owner: string) => ({ ...filterFor(owner), queues: ["default"], limits: LIMITS });

/** After the first statement that reads the ids' rows with their due flag (the claim's read under the lock), runs `then` in the same transaction. */
function afterIdRead(db: Db, then: (tx: Db) => Promise<void>): Db {
  let done = false;
  const wrap = (inner: Db): Db => {
    const wrapped: Db & { write?: unknown } = {
      async query<Row>(sql: string, values: readonly unknown[], name?: string): Promise<Row[]> {
        const rows = await inner.query<Row>(sql, values, name);
        if (!done && /\bAS due\b/.test(sql)) {
          done = true;
          await then(inner);
        }
        return rows;
      },
      request: (sql, values) => inner.request(sql, values),
    };
    const write = (inner as { write?: (sql: string, values: readonly unknown[]) => Promise<number> }).write;
    if (write) wrapped.write = write.bind(inner);
    if (inner.transaction) wrapped.transaction = (fn) => inner.transaction!((tx) => fn(wrap(tx)));
    return wrapped;
  };
  return wrap(db);
}

/** A store of the dialect on `url` whose claims run `then` right after reading the ids' rows. */
function racingStore(dialect: string, url: string, then: (store: Store) => Promise<void>): { store: Store; close: () => Promise<void> } {
  const table = taskTable();
  let own: OwnDb;
  let make: (db: Db) => Store;
  if (dialect === "postgresql") {
    own = pgOwnDb(url, { max: 2 });
    make = (db) => new DialectStore(postgresParts, db, pgTable(table));
  } else if (dialect === "sqlite") {
    own = new SqliteFileDb(sqliteFilePath(url, "databaseUrl"), {});
    make = (db) => new DialectStore(sqliteParts, db, sqliteTable(table));
  } else {
    own = mysqlOwnDb(url, { max: 2 });
    make = (db) => new DialectStore(mysqlParts, db as never, mysqlTable(table));
  }
  return { store: make(afterIdRead(own, (tx) => then(make(tx)))), close: async () => void (await own.close()) };
}

describe.each(STORE_DIALECTS)("a claim by ids under a limit per key, an id becoming due meanwhile ($name)", (dialect) => {
  let url: string;
  let database: { drop(): Promise<void> } | undefined;
  let store: Store;

  beforeAll(async () => {
    const created = await dialect.createDatabase();
    database = created;
    url = created.url;
    store = openStore(url, { max: 2 });
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  /** A running task of `key` and a pending one of the same key due in an hour; made due by `runTaskNow` mid-claim. */
  async function setUp(key: string): Promise<{ running: string; later: string; other: string }> {
    const running = prepared({ concurrencyKey: key });
    const later = prepared({ concurrencyKey: key, delayMs: 3_600_000 });
    const other = prepared({ concurrencyKey: `${key}-other` });
    await sendInsert(store, [running, later, other]);
    expect(await store.claimByIds([running.id], limitedFilter("first"))).toMatchObject([{ id: running.id, claimed: { id: running.id } }]);
    return { running: running.id, later: later.id, other: other.id };
  }

  it("alone: comes back not due and stays pending; its key keeps one run", async () => {
    const { later } = await setUp("alone");
    const racing = racingStore(dialect.name, url, (tx) => tx.runTaskNow(later).then(() => undefined));
    try {
      const [result] = await racing.store.claimByIds([later], limitedFilter("second"));
      expect(result).toMatchObject({ id: later, claimed: null, reason: "not-due" });
    } finally {
      await racing.close();
    }
    expect((await store.findTask(later))?.status).toBe("pending");
  });

  it("beside an id that is claimed: only that one starts", async () => {
    const { later, other } = await setUp("beside");
    const racing = racingStore(dialect.name, url, (tx) => tx.runTaskNow(later).then(() => undefined));
    try {
      const results = await racing.store.claimByIds([other, later], limitedFilter("second"));
      expect(results).toMatchObject([
        { id: other, claimed: { id: other } },
        { id: later, claimed: null, reason: "not-due" },
      ]);
    } finally {
      await racing.close();
    }
    expect((await store.findTask(later))?.status).toBe("pending");
  });
});
