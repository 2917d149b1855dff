// SQL units of the claims of limited queues on PostgreSQL (store/limited-claim.ts runs them in one transaction): the
// queue row's lock, the counts of running tasks (tasks_running_idx) and of recent starts, and the candidates.

import type { Db } from "../../../store/db.js";
import type { GateUnits } from "../../../store/limited-claim.js";
import type { LimitedCandidate, LimitedIdRow } from "../../../store/queue-controls.js";
import type { PgTable } from "../table.js";
import { explainClaims } from "./claim-tasks.js";
import { taskColumns, type TaskRow } from "./task-row.js";

interface CandidateRow {
  id: string;
  name: string;
  queue: string;
  concurrency_key: string | null;
  running_in_group: number;
}

/** The running tasks of a candidate's group (queue, name, concurrency key), by tasks_running_idx (= and IS NULL use it). */
const RUNNING_IN_GROUP = (t: string, c: string) => {
  const count = (key: string) => `(SELECT count(*)::int FROM ${t} r WHERE r.status = 'running' AND r.queue = ${c}.queue AND r.name = ${c}.name AND ${key})`;
  return `CASE WHEN ${c}.concurrency_key IS NULL THEN ${count("r.concurrency_key IS NULL")} ELSE ${count(`r.concurrency_key = ${c}.concurrency_key`)} END`;
};

/** Whether the ids fitted, on every row of the limited claim's one statement. */
interface UsageRow {
  ok: boolean;
}

const toCandidate = (row: CandidateRow): LimitedCandidate => ({
  id: row.id,
  name: row.name,
  queue: row.queue,
  concurrencyKey: row.concurrency_key,
  runningInGroup: Number(row.running_in_group),
});

/** Locks the queue's row until the transaction ends, inserting it first when missing; resolves whether it is paused. */
async function pgLockQueue(db: Db, table: PgTable, queue: string): Promise<{ paused: boolean }> {
  const lock = () => db.query<{ paused: boolean }>(`SELECT paused_at IS NOT NULL AS paused FROM ${table.queues} WHERE queue = $1 FOR UPDATE`, [queue]);
  let rows = await lock();
  if (rows.length === 0) {
    await db.query(`INSERT INTO ${table.queues} (queue, updated_at) VALUES ($1, now()) ON CONFLICT (queue) DO NOTHING`, [queue]);
    rows = await lock();
  }
  return { paused: rows[0]?.paused === true };
}

export const pgGate: GateUnits<Db, PgTable> = {
  lockQueue: pgLockQueue,

  // clock_timestamp(): read under the queue row's lock, so the instants of successive claims only grow (now() is the
  // transaction's start, which may precede the previous holder's commit).
  async usage(db, table, queue, perMs) {
    const window =
      perMs === undefined
        ? ""
        : `
       , (SELECT coalesce(sum(starts), 0)::int FROM ${table.queueStarts} s WHERE s.queue = $1 AND s.started_at > clock_timestamp() - $2::int * interval '1 millisecond') AS starts
       , (SELECT (extract(epoch FROM min(started_at) + $2::int * interval '1 millisecond' - clock_timestamp()) * 1000)::float8
          FROM ${table.queueStarts} s WHERE s.queue = $1 AND s.started_at > clock_timestamp() - $2::int * interval '1 millisecond') AS frees_in_ms`;
    const rows = await db.query<{ running: number; starts?: number; frees_in_ms?: number | null }>(
      `SELECT (SELECT count(*)::int FROM ${table.sql} WHERE status = 'running' AND queue = $1) AS running${window}`,
      perMs === undefined ? [queue] : [queue, perMs],
    );
    const row = rows[0]!;
    return { running: Number(row.running), starts: Number(row.starts ?? 0), freesInMs: Math.ceil(Number(row.frees_in_ms ?? 0)) };
  },

  async recordStarts(db, table, queue, starts, perMs) {
    await db.query(
      `WITH pruned AS (DELETE FROM ${table.queueStarts} WHERE queue = $1 AND started_at <= clock_timestamp() - $3::int * interval '1 millisecond')
       INSERT INTO ${table.queueStarts} AS s (queue, started_at, starts) VALUES ($1, clock_timestamp(), $2)
       ON CONFLICT (queue, started_at) DO UPDATE SET starts = s.starts + EXCLUDED.starts`,
      [queue, starts, perMs],
    );
  },

  // The queue's lock, then one statement: the usage (read with this statement's snapshot, taken after the lock, so it
  // counts every claim that committed before), the ids locked as the claim by ids locks them, and their claim with the
  // record of its starts only when every claimable id fits both limits. One row per claimed task, or one row with null
  // task columns when nothing was claimed.
  async claimIfRoom(db, table, queue, ids, filter, limits) {
    const { paused } = await pgLockQueue(db, table, queue);
    if (paused) return { paused };
    const t = table.sql;
    const unique = [...new Set(ids)];
    const perMs = limits.rateLimit?.perMs;
    const window =
      perMs === undefined
        ? "0 AS starts"
        : `(SELECT coalesce(sum(starts), 0)::int FROM ${table.queueStarts} s WHERE s.queue = $3 AND s.started_at > clock_timestamp() - $8::int * interval '1 millisecond') AS starts`;
    const record =
      perMs === undefined
        ? ""
        : `, pruned AS (DELETE FROM ${table.queueStarts} WHERE queue = $3 AND started_at <= clock_timestamp() - $8::int * interval '1 millisecond')
           , recorded AS (
             INSERT INTO ${table.queueStarts} AS s (queue, started_at, starts)
             SELECT $3, clock_timestamp(), count(*) FROM claimed HAVING count(*) > 0
             ON CONFLICT (queue, started_at) DO UPDATE SET starts = s.starts + EXCLUDED.starts)`;
    const values = [unique, filter.names, queue, filter.owner, Math.round(filter.leaseMs), limits.concurrency ?? null, limits.rateLimit?.starts ?? null];
    const rows = await db.query<UsageRow & Partial<TaskRow>>(
      `WITH usage AS (
         SELECT (SELECT count(*)::int FROM ${t} WHERE status = 'running' AND queue = $3) AS running, ${window}
       ), locked AS (
         SELECT id, status, run_at, name, queue FROM ${t} WHERE id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE SKIP LOCKED
       ), claimable AS (
         SELECT id FROM locked WHERE status = 'pending' AND run_at <= now() AND name = ANY($2::text[]) AND queue = $3
       ), fits AS (
         SELECT ($6::int IS NULL OR u.running + (SELECT count(*) FROM claimable) <= $6::int)
            AND ($7::int IS NULL OR u.starts + (SELECT count(*) FROM claimable) <= $7::int) AS ok
         FROM usage u
       ), claimed AS (
         UPDATE ${t} t
         SET status = 'running', attempts = t.attempts + 1, lease_owner = $4,
             lease_expires_at = now() + $5::int * interval '1 millisecond', updated_at = now()
         FROM claimable c, fits f
         WHERE t.id = c.id AND f.ok
         RETURNING ${taskColumns("t")}
       )${record}
       SELECT f.ok, c.* FROM fits f LEFT JOIN claimed c ON true`,
      perMs === undefined ? values : [...values, perMs],
      perMs === undefined ? "ptq_claim_limited" : "ptq_claim_rate_limited",
    );
    if (!rows[0]!.ok) return { paused };
    const claimed = rows.filter((row): row is UsageRow & TaskRow => typeof row.id === "string");
    return { paused, results: await explainClaims(db, table, unique, claimed, filter) };
  },

  // Walks the pending index of the queue in claim order, skipping the rows whose group is full (one probe of
  // tasks_running_idx per row of a limited task name), so a backlog of one full group never hides the others.
  async dueCandidates(db, table, queue, names, groupLimits, limit) {
    const t = table.sql;
    const rows = await db.query<CandidateRow>(
      `SELECT c.id::text AS id, c.name, c.queue, c.concurrency_key, ${RUNNING_IN_GROUP(t, "c")} AS running_in_group
       FROM ${t} c
       WHERE c.status = 'pending' AND c.queue = $1 AND c.run_at <= now() AND c.name = ANY($2::text[])
         AND (NOT ($3::jsonb ? c.name) OR ${RUNNING_IN_GROUP(t, "c")} < ($3::jsonb ->> c.name)::int)
       ORDER BY c.priority DESC, c.run_at
       LIMIT $4`,
      [queue, names, JSON.stringify(groupLimits), limit],
    );
    return rows.map(toCandidate);
  },

  async idRows(db, table, ids, groupNames) {
    const rows = await db.query<CandidateRow & { status: string; due: boolean }>(
      `SELECT c.id::text AS id, c.name, c.queue, c.concurrency_key, c.status, c.run_at <= now() AS due,
              CASE WHEN c.status = 'pending' AND c.name = ANY($2::text[]) THEN ${RUNNING_IN_GROUP(table.sql, "c")} ELSE 0 END AS running_in_group
       FROM ${table.sql} c WHERE c.id = ANY($1::uuid[])`,
      [ids, groupNames],
    );
    return rows.map((row): LimitedIdRow => ({ ...toCandidate(row), status: row.status, due: row.due }));
  },
};
