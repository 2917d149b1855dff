// SQL units of the claims of limited queues on SQLite (store/limited-claim.ts runs them in one write transaction,
// BEGIN IMMEDIATE, which already makes every claim wait for the others): the counts of running tasks (tasks_running_idx)
// and of recent starts, and the candidates.

import type { Db } from "../../../store/db.js";
import type { GateUnits } from "../../../store/limited-claim.js";
import type { LimitedCandidate, LimitedIdRow } from "../../../store/queue-controls.js";
import { bind } from "../bind.js";
import { NOW } from "../clock.js";
import type { SqliteTable } from "../table.js";
import { jsonList } from "./task-row.js";

interface CandidateRow {
  id: string;
  name: string;
  queue: string;
  concurrency_key: string | null;
  running_in_group: number;
}

/** The running tasks of a candidate's group (queue, name, concurrency key): `IS` matches NULL keys and uses the index. */
const RUNNING_IN_GROUP = (t: string, c: string) =>
  `(SELECT count(*) FROM ${t} r WHERE r.status = 'running' AND r.queue = ${c}.queue AND r.name = ${c}.name AND r.concurrency_key IS ${c}.concurrency_key)`;

const toCandidate = (row: CandidateRow): LimitedCandidate => ({
  id: row.id,
  name: row.name,
  queue: row.queue,
  concurrencyKey: row.concurrency_key,
  runningInGroup: Number(row.running_in_group),
});

/** Milliseconds since the Unix epoch, by the database's clock (julianday keeps the milliseconds). */
const NOW_MS = `CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER)`;

export const sqliteGate: GateUnits<Db, SqliteTable> = {
  async lockQueue(db, table, queue) {
    const rows = await db.query<{ paused: number }>(...bind(`SELECT paused_at IS NOT NULL AS paused FROM ${table.queues} WHERE queue = {queue}`, { queue }));
    return { paused: Number(rows[0]?.paused ?? 0) === 1 };
  },

  // started_at holds epoch milliseconds here: the window's arithmetic stays exact and the key stays an integer.
  async usage(db, table, queue, perMs) {
    const window =
      perMs === undefined
        ? ""
        : `, (SELECT COALESCE(SUM(starts), 0) FROM ${table.queueStarts} WHERE queue = {queue} AND started_at > ${NOW_MS} - {perMs}) AS starts
           , (SELECT MIN(started_at) + {perMs} - ${NOW_MS} FROM ${table.queueStarts} WHERE queue = {queue} AND started_at > ${NOW_MS} - {perMs}) AS frees_in_ms`;
    const rows = await db.query<{ running: number; starts?: number; frees_in_ms?: number | null }>(
      ...bind(
        `SELECT (SELECT count(*) FROM ${table.sql} WHERE status = 'running' AND queue = {queue}) AS running${window}`,
        perMs === undefined ? { queue } : { queue, perMs },
      ),
    );
    const row = rows[0]!;
    return { running: Number(row.running), starts: Number(row.starts ?? 0), freesInMs: Math.ceil(Number(row.frees_in_ms ?? 0)) };
  },

  async recordStarts(db, table, queue, starts, perMs) {
    await db.query(...bind(`DELETE FROM ${table.queueStarts} WHERE queue = {queue} AND started_at <= ${NOW_MS} - {perMs}`, { queue, perMs }));
    await db.query(
      ...bind(
        `INSERT INTO ${table.queueStarts} (queue, started_at, starts) VALUES ({queue}, ${NOW_MS}, {starts})
         ON CONFLICT (queue, started_at) DO UPDATE SET starts = starts + excluded.starts`,
        { queue, starts },
      ),
    );
  },

  async dueCandidates(db, table, queue, names, groupLimits, limit) {
    const t = table.sql;
    const rows = await db.query<CandidateRow>(
      ...bind(
        `SELECT c.id, c.name, c.queue, c.concurrency_key, ${RUNNING_IN_GROUP(t, "c")} AS running_in_group
         FROM ${t} c
         WHERE c.status = 'pending' AND c.queue = {queue} AND c.run_at <= ${NOW} AND c.name IN ${jsonList("{names}")}
           AND (json_extract({limits}, '$."' || c.name || '"') IS NULL OR ${RUNNING_IN_GROUP(t, "c")} < json_extract({limits}, '$."' || c.name || '"'))
         ORDER BY c.priority DESC, c.run_at
         LIMIT {limit}`,
        { queue, names: JSON.stringify(names), limits: JSON.stringify(groupLimits), limit },
      ),
    );
    return rows.map(toCandidate);
  },

  async idRows(db, table, ids, groupNames) {
    const rows = await db.query<CandidateRow & { status: string; due: number }>(
      ...bind(
        `SELECT c.id, c.name, c.queue, c.concurrency_key, c.status, c.run_at <= ${NOW} AS due,
                CASE WHEN c.status = 'pending' AND c.name IN ${jsonList("{groupNames}")} THEN ${RUNNING_IN_GROUP(table.sql, "c")} ELSE 0 END AS running_in_group
         FROM ${table.sql} c WHERE c.id IN ${jsonList("{ids}")}`,
        { ids: JSON.stringify(ids), groupNames: JSON.stringify(groupNames) },
      ),
    );
    return rows.map((row): LimitedIdRow => ({ ...toCandidate(row), status: row.status, due: Number(row.due) === 1 }));
  },
};
