// SQL unit: the (queue, name) pairs present in the task table, found by walking the browse index with one probe per
// pair (a loose index scan), so the cost follows the number of pairs, not of rows. Needs the browse index.

import type { Db } from "../../../store/db.js";
import type { PgTable } from "../table.js";
import type { TaskGroup } from "../../../store/views.js";

/** The distinct (queue, name) pairs, ordered; `queue`/`name` pin one side. Only call it when hasBrowseIndex is true. */
export async function listTaskGroups(db: Db, table: PgTable, pin: { queue?: string; name?: string } = {}): Promise<TaskGroup[]> {
  const t = table.sql;
  const values: unknown[] = [];
  const param = (value: string) => {
    values.push(value);
    return `$${values.length}::text`;
  };
  const queues =
    pin.queue !== undefined
      ? `queues(queue) AS (SELECT ${param(pin.queue)})`
      : `queues(queue) AS (
         (SELECT queue FROM ${t} ORDER BY queue LIMIT 1)
         UNION ALL
         SELECT (SELECT queue FROM ${t} WHERE queue > q.queue ORDER BY queue LIMIT 1) FROM queues q WHERE q.queue IS NOT NULL)`;
  let pairs: string;
  if (pin.name !== undefined) {
    const name = param(pin.name);
    pairs = `pairs(queue, name) AS (
         SELECT q.queue, ${name} FROM queues q
         WHERE q.queue IS NOT NULL AND EXISTS (SELECT 1 FROM ${t} WHERE queue = q.queue AND name = ${name}))`;
  } else {
    pairs = `pairs(queue, name) AS (
         SELECT q.queue, (SELECT name FROM ${t} WHERE queue = q.queue ORDER BY name LIMIT 1) FROM queues q WHERE q.queue IS NOT NULL
         UNION ALL
         SELECT p.queue, (SELECT name FROM ${t} WHERE queue = p.queue AND name > p.name ORDER BY name LIMIT 1)
         FROM pairs p WHERE p.name IS NOT NULL)`;
  }
  return db.query<TaskGroup>(
    `WITH RECURSIVE ${queues}, ${pairs}
     SELECT queue, name FROM pairs WHERE name IS NOT NULL ORDER BY queue, name`,
    values,
  );
}

/**
 * `(VALUES ($n::text, $n+1::text), …) AS <alias>(queue, name)` for `groups`, with the values appended to `values`.
 * A VALUES list tells the planner the exact row count, which keeps the plan cost (and so JIT) in check.
 */
export function groupsValues(groups: readonly TaskGroup[], values: unknown[], alias = "g"): string {
  const rows = groups.map((group) => {
    values.push(group.queue, group.name);
    return `($${values.length - 1}::text, $${values.length}::text)`;
  });
  return `(VALUES ${rows.join(", ")}) AS ${alias}(queue, name)`;
}
