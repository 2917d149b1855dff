// SQL units for the cleaner's leader election: a named lock (GET_LOCK) held by a dedicated session, the key it uses,
// and who holds it (for `task-runner status` and the dashboard). A session's named locks end with the session.

import type { LeaderInfo } from "../../../store/leader-lock.js";
import type { CountingDb, Db } from "../../../store/db.js";
import type { MysqlTable } from "../table.js";
import { num } from "./values.js";

/**
 * The key the cleaners of `table` compete for: FNV-1a of the table's name, kept to 31 bits (PostgreSQL's advisory lock
 * key is derived the same way). The database that holds the table is not in the key but in the lock's name (below), so
 * cleaners that reach one table from different default databases compete for one lock.
 */
export function cleanerLockKey(table: MysqlTable): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(`prisma-task-queue:cleaner:\`${table.name}\``, "utf8")) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash & 0x7fffffff;
}

/**
 * The lock's name as SQL; its placeholders are the table's database (null: the connection's) and the key. Named locks
 * are server-wide, so the name includes the database that holds the table: two databases on one server never share a
 * leader, and cleaners reaching one table from different default databases still do. MD5 keeps it within MySQL's 64
 * characters.
 */
const LOCK_NAME = `CONCAT('ptq-cleaner:', MD5(CONCAT(COALESCE(?, DATABASE()), ':', ?)))`;

/** Which lock the cleaners of one task table compete for. */
export interface NamedLock {
  /** The cleaners' lock key (cleanerLockKey, or the cleaner's lockKey option). */
  key: number;
  /** The database that holds the task table (the store's schema option); undefined: the connection's database. */
  database: string | undefined;
}

const lockParams = (lock: NamedLock) => [lock.database ?? null, lock.key];

/** Takes the lock for this session if it is free (never waits). True when this session holds it now. */
export async function tryNamedLock(db: Pick<Db, "query">, lock: NamedLock): Promise<boolean> {
  const rows = await db.query<{ locked: unknown }>(`SELECT GET_LOCK(${LOCK_NAME}, 0) AS locked`, lockParams(lock));
  return num(rows[0]?.locked) === 1;
}

/** True when this session holds the lock (the leader's ping: it proves the session and the lock both still stand). */
export async function holdsNamedLock(db: Pick<Db, "query">, lock: NamedLock): Promise<boolean> {
  const rows = await db.query<{ held: unknown }>(`SELECT IS_USED_LOCK(${LOCK_NAME}) = CONNECTION_ID() AS held`, lockParams(lock));
  return num(rows[0]?.held) === 1;
}

/** Releases the lock held by this session. False when this session did not hold it. */
export async function releaseNamedLock(db: Pick<Db, "query">, lock: NamedLock): Promise<boolean> {
  const rows = await db.query<{ released: unknown }>(`SELECT RELEASE_LOCK(${LOCK_NAME}) AS released`, lockParams(lock));
  return num(rows[0]?.released) === 1;
}

/**
 * The session that holds the lock, or undefined when no cleaner leads. Its user and address come from the process
 * list, which shows other users' sessions only with the PROCESS privilege; without it the holder is still named by
 * its connection id.
 */
export async function namedLockHolder(db: CountingDb, lock: NamedLock): Promise<LeaderInfo | undefined> {
  const rows = await db.query<{ pid: unknown; user: string | null; host: string | null }>(
    `SELECT h.pid, p.USER AS user, p.HOST AS host
     FROM (SELECT IS_USED_LOCK(${LOCK_NAME}) AS pid) AS h
     LEFT JOIN information_schema.PROCESSLIST p ON p.ID = h.pid
     WHERE h.pid IS NOT NULL`,
    lockParams(lock),
  );
  const row = rows[0];
  if (!row) return undefined;
  const host = row.host && !/^localhost$/i.test(row.host) ? row.host : null;
  return { pid: num(row.pid), pidOf: "database-connection", holder: row.user && row.host ? `${row.user}@${row.host}` : row.user, clientAddr: host, since: null };
}
