// SQL units of the claims of limited queues on MySQL / MariaDB (store/limited-claim.ts runs them in one transaction):
// the queue row's lock, the counts of running tasks (index status, queue, name, concurrency_key) and of recent starts,
// and the candidates.

import type { CountingDb } from "../../../store/db.js";
import type { GateUnits } from "../../../store/limited-claim.js";
import type { LimitedCandidate, LimitedIdRow } from "../../../store/queue-controls.js";
import type { MysqlTable } from "../table.js";
import { flag, NOW, num, placeholders } from "./values.js";

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

export const mysqlGate: GateUnits<CountingDb, MysqlTable> = {
  async lockQueue(db, table, queue) {
    const lock = () => db.query<{ paused: unknown }>(`SELECT paused_at IS NOT NULL AS paused FROM ${table.queues} WHERE queue = ? FOR UPDATE`, [queue]);
    let rows = await lock();
    if (rows.length === 0) {
      // Not INSERT IGNORE: its shared lock on a row another claimer just inserted, upgraded by the next locking read,
      // deadlocks two claimers that waited for it; ON DUPLICATE KEY UPDATE takes the row's exclusive lock at once.
      await db.write(`INSERT INTO ${table.queues} (queue, updated_at) VALUES (?, ${NOW}) ON DUPLICATE KEY UPDATE queue = queue`, [queue]);
      rows = await lock();
    }
    return { paused: flag(rows[0]?.paused) };
  },

  async usage(db, table, queue, perMs) {
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
  },

  async recordStarts(db, table, queue, starts, perMs) {
    await db.write(`DELETE FROM ${table.queueStarts} WHERE queue = ? AND started_at <= ${INSTANT} - INTERVAL ? * 1000 MICROSECOND`, [queue, perMs]);
    await db.write(`INSERT INTO ${table.queueStarts} (queue, started_at, starts) VALUES (?, ${INSTANT}, ?) ON DUPLICATE KEY UPDATE starts = starts + VALUES(starts)`, [
      queue,
      starts,
    ]);
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
