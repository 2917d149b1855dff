// The MySQL leader lock (GET_LOCK on a session of its own) where it differs from the others: the holder named by its
// session, a silent leader's session ended by the server, one lock per table however reached, one per database. A lost
// lock on every dialect: test/cleaner/leader.test.ts.

import type { Pool } from "mariadb";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { openStore, silentLogger, type Store } from "../../src/index.js";
import type { ElectionTiming, LeaderLock } from "../../src/store/leader-lock.js";
import { createMysqlTestDatabase, mysqlTestPool, type MysqlTestDatabase } from "../support/mysql-database.js";
import { waitUntil } from "../support/wait.js";

let database: MysqlTestDatabase;
let other: MysqlTestDatabase;
let sql: Pool;
let store: Store;
let otherStore: Store;
const locks: LeaderLock[] = [];

beforeAll(async () => {
  [database, other] = await Promise.all([createMysqlTestDatabase(), createMysqlTestDatabase()]);
  sql = mysqlTestPool(database);
  store = openStore(database.url, { max: 1 });
  otherStore = openStore(other.url, { max: 1 });
});

afterEach(async () => {
  for (const lock of locks.splice(0)) await lock.release();
});

afterAll(async () => {
  await store?.close();
  await otherStore?.close();
  await sql?.end();
  await database?.drop();
  await other?.drop();
});

function contender(timing: ElectionTiming, on = store): LeaderLock {
  const lock = on.leaderLock(on.defaultLockKey(), timing, silentLogger);
  locks.push(lock);
  return lock;
}

const quick: ElectionTiming = { heartbeatMs: 100, answerTimeoutMs: 2000, serverIdleTimeoutMs: 5000 };

it("names the holder by its session", async () => {
  const leader = contender(quick);
  const follower = contender(quick);
  expect(await leader.check()).toBe(true);
  expect(await follower.check()).toBe(false);
  const holder = await store.leaderHolder(store.defaultLockKey());
  const [session] = await sql.query<Array<{ id: number; user: string; host: string }>>(
    "SELECT ID AS id, USER AS user, HOST AS host FROM information_schema.PROCESSLIST WHERE ID = ?",
    [holder?.pid],
  );
  expect(session).toBeDefined();
  expect(holder).toEqual({ pid: Number(session!.id), pidOf: "database-connection", holder: `${session!.user}@${session!.host}`, clientAddr: session!.host, since: null });
});

it("a leader that stops pinging loses its session after serverIdleTimeoutMs, which frees the lock", async () => {
  const silent = contender({ heartbeatMs: 60_000, answerTimeoutMs: 2000, serverIdleTimeoutMs: 1000 });
  const waiting = contender(quick);
  expect(await silent.check()).toBe(true);
  expect(await waiting.check()).toBe(false);
  await waitUntil(async () => waiting.check(), "the server to end the silent leader's session", 5000);
  await waitUntil(() => !silent.isLeader, "the silent leader to see its session end", 2000);
});

it("cleaners that reach one table from different default databases compete for one lock", async () => {
  const viaOther = openStore(other.url, { max: 1, schema: database.name });
  try {
    expect(viaOther.defaultLockKey()).toBe(store.defaultLockKey());
    const here = contender(quick);
    const there = contender(quick, viaOther);
    expect(await here.check()).toBe(true);
    expect(await there.check()).toBe(false);
    expect((await viaOther.leaderHolder(viaOther.defaultLockKey()))?.pid).toBe((await store.leaderHolder(store.defaultLockKey()))?.pid);
    await here.release();
    expect(await there.check()).toBe(true);
  } finally {
    for (const lock of locks.splice(0)) await lock.release();
    await viaOther.close();
  }
});

it("two databases on one server have a leader each, even with the same key", async () => {
  const here = contender(quick);
  const there = contender(quick, otherStore);
  expect(store.defaultLockKey()).toBe(otherStore.defaultLockKey());
  expect(await here.check()).toBe(true);
  expect(await there.check()).toBe(true);
});
