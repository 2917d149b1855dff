// The demo's verdict, checked from the database: every committed task finished and ran (successfully) exactly once;
// no rolled-back task has a row or ever ran; nothing is stuck.

import type pg from "pg";
import type { LoadResult } from "./load.js";

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export async function verdict(pool: pg.Pool, load: LoadResult): Promise<Check[]> {
  const committed = await pool.query(
    `SELECT t.id::text, t.status, t.attempts,
            (SELECT count(*)::int FROM demo_runs r WHERE r.task_id = t.id AND r.outcome = 'succeeded') AS successes
     FROM tasks t WHERE t.id = ANY($1::uuid[])`,
    [load.committed],
  );
  const unique = new Set(load.committed);
  const rows = committed.rows;
  const notFinished = rows.filter((r) => r.status !== "succeeded");
  const wrongRuns = rows.filter((r) => r.successes !== 1);
  const ghosts = await pool.query("SELECT count(*)::int AS n FROM tasks WHERE id = ANY($1::uuid[])", [load.rolledBack]);
  const ghostRuns = await pool.query("SELECT count(*)::int AS n FROM demo_runs WHERE task_id = ANY($1::uuid[])", [load.rolledBack]);
  const stuck = await pool.query("SELECT count(*)::int AS n FROM tasks WHERE status IN ('pending', 'running')");
  const retried = rows.filter((r) => r.attempts > 1).length;
  return [
    { name: "committed → row exists", ok: rows.length === unique.size, detail: `${rows.length} of ${unique.size} committed tasks have a row` },
    { name: "committed → finished", ok: notFinished.length === 0, detail: `${rows.length - notFinished.length} succeeded, ${notFinished.length} not (${retried} needed retries)` },
    { name: "committed → ran once", ok: wrongRuns.length === 0, detail: `${rows.length - wrongRuns.length} tasks have exactly one successful run` },
    { name: "rolled back → no row", ok: ghosts.rows[0].n === 0, detail: `${load.rolledBack.length} rolled-back tasks, ${ghosts.rows[0].n} rows` },
    { name: "rolled back → never ran", ok: ghostRuns.rows[0].n === 0, detail: `${ghostRuns.rows[0].n} runs of rolled-back tasks` },
    { name: "nothing stuck", ok: stuck.rows[0].n === 0, detail: `${stuck.rows[0].n} tasks pending or running at the end` },
  ];
}
