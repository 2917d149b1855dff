// SQL units of the claims of limited queues on MySQL / MariaDB (store/limited-claim.ts runs them in one transaction):
// the queue row's lock, the counts of running tasks (index status, queue, name, concurrency_key) and of recent starts,
// and the candidates.

import type { CountingDb } from "../../../store/db.js";
import type { GateUnits } from "../../../store/limited-claim.js";
import type { QueueUsage } from "../../../store/queue-controls.js";
import type { LimitedCandidate, LimitedIdRow } from "../../../store/queue-controls.js";
import type { MysqlTable } from "../table.js";
import { flag, NOW, num, placeholders } from "./values.js";
import { claimableRows, explainClaims, lockIds, uniqueIds } from "./claim-tasks.js";
import { markClaimed } from "./claim-lock.js";

interface CandidateRow {
  id: string;
  name: string;
  queue: string;
  concurrency_key: string | null;
  running_in_group: unknown;
}

/** The running tasks of a candidate's group (queue, name, concurrency key); `<=>` matches NULL keys and uses the index. */
const RUNNING_IN_GROUP = (t: string, c: string) =>
  `(SELECT COUNT(*) FROM ${t} r WHERE r.status = 'running' AND r.queue = ${c}.queue AND r.name = ${c}.name AND r.concurrency_key <=> ${c}.concurrency_key)`;

const toCandidate = (row: CandidateRow): LimitedCandidate => ({
  id: row.id,
  name: row.name,
  queue: row.queue,
  concurrencyKey: row.concurrency_key,
  runningInGroup: num(row.running_in_group),
});

/**
 * The claim's instant: UTC_TIMESTAMP(6) is the start of each statement, and these statements run after lockQueue took
 * the queue row's lock, so the instants of successive claims only grow.
 */
const INSTANT = NOW;

/** In one statement: the queue's running tasks and, with a rate window, its starts within it and when the oldest leaves. */
async function readUsage(db: CountingDb, table: MysqlTable, queue: string, perMs: number | undefined): Promise<QueueUsage> {
  const inWindow = `FROM ${table.queueStarts} s WHERE s.queue = ? AND s.started_at > ${INSTANT} - INTERVAL ? * 1000 MICROSECOND`;
  const window =
    perMs === undefined
      ? ""
      : `, (SELECT COALESCE(SUM(starts), 0) ${inWindow}) AS starts
         , (SELECT TIMESTAMPDIFF(MICROSECOND, ${INSTANT}, MIN(started_at) + INTERVAL ? * 1000 MICROSECOND) ${inWindow}) AS frees_in_us`;
  const rows = await db.query<{ running: unknown; starts?: unknown; frees_in_us?: unknown }>(
    `SELECT (SELECT COUNT(*) FROM ${table.sql} WHERE status = 'running' AND queue = ?) AS running${window}`,
    perMs === undefined ? [queue] : [queue, queue, perMs, perMs, queue, perMs],
  );
  const row = rows[0]!;
  return { running: num(row.running), starts: num(row.starts), freesInMs: Math.ceil(num(row.frees_in_us) / 1000) };
}

/**
 * The two writes that record `starts` starts now: the queue's rows that left the window go, a row of this instant
 * takes the count. Sent at once (their rows differ); await them together.
 */
function recordStartStatements(db: CountingDb, table: MysqlTable, queue: string, starts: number, perMs: number): Promise<number>[] {
  return [
    db.write(`DELETE FROM ${table.queueStarts} WHERE queue = ? AND started_at <= ${INSTANT} - INTERVAL ? * 1000 MICROSECOND`, [queue, perMs]),
    db.write(`INSERT INTO ${table.queueStarts} (queue, started_at, starts) VALUES (?, ${INSTANT}, ?) ON DUPLICATE KEY UPDATE starts = starts + VALUES(starts)`, [
      queue,
      starts,
    ]),
  ];
}

/** The queue's row, locked until the transaction ends; none when it does not exist yet. */
const lockRow = (db: CountingDb, table: MysqlTable, queue: string) =>
  db.query<{ paused: unknown }>(`SELECT paused_at IS NOT NULL AS paused FROM ${table.queues} WHERE queue = ? FOR UPDATE`, [queue]);

/** Locks the queue's row until the transaction ends, inserting it first when missing; resolves whether it is paused. */
async function lockQueue(db: CountingDb, table: MysqlTable, queue: string): Promise<{ paused: boolean }> {
  let rows = await lockRow(db, table, queue);
  if (rows.length === 0) {
    // Not INSERT IGNORE: its shared lock on a row another claimer just inserted, upgraded by the next locking read,
    // deadlocks two claimers that waited for it; ON DUPLICATE KEY UPDATE takes the row's exclusive lock at once.
    await db.write(`INSERT INTO ${table.queues} (queue, updated_at) VALUES (?, ${NOW}) ON DUPLICATE KEY UPDATE queue = queue`, [queue]);
    rows = await lockRow(db, table, queue);
  }
  return { paused: flag(rows[0]?.paused) };
}

/**
 * The queue's lock and the usage read after it, in one round trip: the lock goes out first and the usage right behind
 * it on the transaction's one connection (the driver pipelines, the server runs a connection's statements in order), so
 * the usage's snapshot is taken once the lock is held. When the row did not exist, the usage read without the lock is
 * dropped and read again after making and locking the row.
 */
async function lockWithUsage(db: CountingDb, table: MysqlTable, queue: string, perMs: number | undefined): Promise<{ paused: boolean; usage: QueueUsage }> {
  const lock = lockRow(db, table, queue);
  const usage = readUsage(db, table, queue, perMs);
  const [rows, read] = await Promise.all([lock, usage]);
  if (rows.length > 0) return { paused: flag(rows[0]!.paused), usage: read };
  const { paused } = await lockQueue(db, table, queue);
  return { paused, usage: await readUsage(db, table, queue, perMs) };
}

/** Where a claim by ids goes back to when its ids do not fit (see claimIfRoom). */
const SAVEPOINT = "ptq_claim_if_room";

export const mysqlGate: GateUnits<CountingDb, MysqlTable> = {
  lockQueue,

  usage: readUsage,

  async recordStarts(db, table, queue, starts, perMs) {
    await Promise.all(recordStartStatements(db, table, queue, starts, perMs));
  },

  // The costly part first, before the queue's lock: the ids locked and marked running, after a savepoint. Then the
  // queue's lock and the usage read after it, which counts this claim's own rows (a transaction reads its own changes)
  // and every claim committed before the lock. Within the limits, the claim stands and its starts are recorded; else
  // it goes back to the savepoint, takes the queue's lock again, and the caller goes on under it. The queue's row is
  // held for the record of the starts and the commit alone, so the claims of two workers overlap where they would take
  // turns. While this claim waits for the queue's lock it holds only its own ids, which no holder of that lock waits
  // for: claims skip locked rows, and resumeQueue writes the tasks before it takes the queue's row.
  async claimIfRoom(db, table, queue, ids, filter, limits) {
    const unique = uniqueIds(ids);
    if (unique.length === 0) return { paused: false, results: [] };
    // The savepoint and the locking read go out at once, in this order (see lockWithUsage).
    const [, locked] = await Promise.all([db.write(`SAVEPOINT ${SAVEPOINT}`, []), lockIds(db, table, unique, filter)]);
    const claimed = await markClaimed(db, table, claimableRows(locked, filter), filter);
    const perMs = limits.rateLimit?.perMs;
    const { paused, usage } = await lockWithUsage(db, table, queue, perMs);
    const { concurrency, rateLimit } = limits;
    const fits = !paused && (concurrency === undefined || usage.running <= concurrency) && (rateLimit === undefined || usage.starts + claimed.length <= rateLimit.starts);
    if (!fits) {
      // Going back to the savepoint also releases the locks taken after it (InnoDB in MariaDB 10.11 does; checked), the
      // queue's row included: take it again before the caller goes on under it.
      await db.write(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`, []);
      return lockQueue(db, table, queue);
    }
    if (perMs !== undefined && claimed.length > 0) await Promise.all(recordStartStatements(db, table, queue, claimed.length, perMs));
    return { paused, results: await explainClaims(db, table, unique, claimed, locked, filter) };
  },

  async dueCandidates(db, table, queue, names, groupLimits, limit) {
    if (names.length === 0) return [];
    const t = table.sql;
    const limitOf = `JSON_EXTRACT(?, CONCAT('$."', c.name, '"'))`;
    const rows = await db.query<CandidateRow>(
      `SELECT c.id, c.name, c.queue, c.concurrency_key, ${RUNNING_IN_GROUP(t, "c")} AS running_in_group
       FROM ${t} c
       WHERE c.status = 'pending' AND c.queue = ? AND c.run_at <= ${NOW} AND c.name IN (${placeholders(names.length)})
         AND (${limitOf} IS NULL OR ${RUNNING_IN_GROUP(t, "c")} < ${limitOf})
       ORDER BY c.priority DESC, c.run_at
       LIMIT ?`,
      [queue, ...names, JSON.stringify(groupLimits), JSON.stringify(groupLimits), Math.floor(limit)],
    );
    return rows.map(toCandidate);
  },

  async idRows(db, table, ids, groupNames) {
    if (ids.length === 0) return [];
    const rows = await db.query<CandidateRow & { status: string; due: unknown }>(
      `SELECT c.id, c.name, c.queue, c.concurrency_key, c.status, c.run_at <= ${NOW} AS due,
              CASE WHEN c.status = 'pending' AND c.name IN (${placeholders(groupNames.length)}) THEN ${RUNNING_IN_GROUP(table.sql, "c")} ELSE 0 END AS running_in_group
       FROM ${table.sql} c WHERE c.id IN (${placeholders(ids.length)})`,
      [...groupNames, ...ids],
    );
    return rows.map((row): LimitedIdRow => ({ ...toCandidate(row), status: row.status, due: flag(row.due) }));
  },
};
