// SQL units for the cleaner's leader election: a session-level advisory lock taken on a dedicated connection, the key
// it uses, and who holds it (for `task-runner status` and the dashboard).

import type { Db } from "../../../store/db.js";
import type { LeaderInfo } from "../../../store/leader-lock.js";
import type { PgTable } from "../table.js";

/**
 * The advisory lock key the cleaners of `table` compete for: FNV-1a of the quoted, qualified table name, kept to
 * 31 bits so that pg_locks shows it as classid 0, objid = key. Advisory locks are per database, so two databases
 * never collide; two tables in one database get different keys.
 */
export function cleanerLockKey(table: PgTable): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(`prisma-task-queue:cleaner:${table.sql}`, "utf8")) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash & 0x7fffffff;
}

/** Takes the lock for this session if it is free. True when this session holds it (again) now. */
export async function tryLeaderLock(db: Db, key: number): Promise<boolean> {
  const rows = await db.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1::bigint) AS locked", [key]);
  return rows[0]?.locked === true;
}

/** Releases the lock held by this session. False when this session did not hold it. */
export async function releaseLeaderLock(db: Db, key: number): Promise<boolean> {
  const rows = await db.query<{ released: boolean }>("SELECT pg_advisory_unlock($1::bigint) AS released", [key]);
  return rows[0]?.released === true;
}

/** The backend that holds the lock in this database, or undefined when no cleaner leads. */
export async function leaderLockHolder(db: Db, key: number): Promise<LeaderInfo | undefined> {
  const rows = await db.query<{ pid: number; application_name: string; client_addr: string | null; backend_start: Date | null }>(
    `SELECT l.pid, a.application_name, a.client_addr::text AS client_addr, a.backend_start
     FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
     WHERE l.locktype = 'advisory' AND l.granted
       AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND l.classid = ($1::bigint >> 32)::oid AND l.objid = ($1::bigint & 4294967295)::oid AND l.objsubid = 1
     LIMIT 1`,
    [key],
  );
  const row = rows[0];
  return row && { pid: row.pid, pidOf: "database-backend", holder: row.application_name, clientAddr: row.client_addr, since: row.backend_start };
}
