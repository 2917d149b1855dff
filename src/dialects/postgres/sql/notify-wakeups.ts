// SQL units of PostgreSQL NOTIFY wake-ups: the CTE an insert adds to notify its new tasks (due now, or due later with
// the time left) inside the enqueuing transaction, so they leave with the COMMIT and a rollback sends nothing; the
// re-send outside any app transaction; LISTEN.

import type { Db } from "../../../store/db.js";

/**
 * Ids per notification. A payload is `<queue>:<id>,<id>,…`: with a queue name of at most 100 bytes and 37 bytes per id,
 * 200 ids take at most 7,500 bytes, under NOTIFY's limit of 8,000.
 */
const NOTIFY_CHUNK_IDS = 200;
/**
 * Ids per notification of tasks due later, whose payload is `@<queue>:<id>/<run_at>,…` (`run_at` in Unix ms, database
 * clock, at most 13 digits): at most 101 + 150 × 51 = 7,751 bytes. The leading "@" is never part of a queue name, so a
 * listener that does not know this form reads an unknown queue and ignores it.
 */
const NOTIFY_LATER_CHUNK_IDS = 150;

/**
 * A CTE named `notified` that sends, on channel `channelParam` (a `$n` parameter; NULL sends nothing), for the rows of
 * CTE `source` (columns id, queue, run_at): one notification per queue and chunk of the ids due now, and one per queue
 * and chunk of those due later, each with its run_at (Unix ms, database clock: the listener, which reads that clock
 * itself, counts the time left when the notification arrives). Both leave with the COMMIT; a rollback sends none.
 * A statement that uses it must read it, with NOTIFIED_GUARD: PostgreSQL skips a CTE that nothing reads.
 */
export function notifiedCte(channelParam: string, source: string): string {
  return `notified AS (
  SELECT pg_notify(${channelParam}::text, CASE WHEN later
           THEN '@' || queue || ':' || string_agg(id::text || '/' || run_at_ms, ',')
           ELSE queue || ':' || string_agg(id::text, ',') END)
  FROM (SELECT id, queue, later, run_at_ms,
               (row_number() OVER (PARTITION BY queue, later) - 1) / CASE WHEN later THEN ${NOTIFY_LATER_CHUNK_IDS} ELSE ${NOTIFY_CHUNK_IDS} END AS chunk
        FROM (SELECT id, queue, run_at > now() AS later, ceil(extract(epoch FROM run_at) * 1000)::bigint AS run_at_ms
              FROM ${source} WHERE ${channelParam}::text IS NOT NULL) AS timed) AS chunked
  GROUP BY queue, later, chunk
)`;
}

/** A condition that is always true and makes the statement run the `notified` CTE once (a one-time filter). */
export const NOTIFIED_GUARD = "(SELECT count(*) FROM notified) >= 0";

/** Sends wake-ups for `ids` of task queue `queue` on `channel` now, in chunks; resolves how many notifications left. */
export async function notifyWakeups(db: Db, channel: string, queue: string, ids: readonly string[]): Promise<number> {
  const rows = await db.query<{ sent: number }>(
    `SELECT count(*)::int AS sent FROM (
  SELECT pg_notify($1::text, $2::text || ':' || string_agg(id, ',' ORDER BY n))
  FROM unnest($3::text[]) WITH ORDINALITY AS u(id, n)
  GROUP BY (n - 1) / ${NOTIFY_CHUNK_IDS}
) AS sent`,
    [channel, queue, ids],
    "notify_wakeups",
  );
  return rows[0]?.sent ?? 0;
}

/**
 * Sends wake-ups of tasks due later for `wakeups` of task queue `queue` on `channel` now, in chunks, each with its due
 * time on the database's clock (its now() plus the time left): the form the insert's CTE sends. Resolves how many
 * notifications left.
 */
export async function notifyLaterWakeups(db: Db, channel: string, queue: string, wakeups: ReadonlyArray<{ id: string; dueInMs: number }>): Promise<number> {
  const rows = await db.query<{ sent: number }>(
    `SELECT count(*)::int AS sent FROM (
  SELECT pg_notify($1::text, '@' || $2::text || ':' || string_agg(id || '/' || (ceil(extract(epoch FROM now()) * 1000) + in_ms)::bigint, ',' ORDER BY n))
  FROM unnest($3::text[], $4::bigint[]) WITH ORDINALITY AS u(id, in_ms, n)
  GROUP BY (n - 1) / ${NOTIFY_LATER_CHUNK_IDS}
) AS sent`,
    [channel, queue, wakeups.map((wakeup) => wakeup.id), wakeups.map((wakeup) => Math.max(0, Math.ceil(wakeup.dueInMs)))],
    "notify_later_wakeups",
  );
  return rows[0]?.sent ?? 0;
}

/** The LISTEN statement. `channel` must be checked already (letters, digits, "_", "." and "-"; at most 63 bytes). */
export function listenSql(channel: string): string {
  return `LISTEN "${channel.replaceAll('"', '""')}"`;
}

/** A payload sent by these statements: ids due now, or (with `runAtMs`, one per id: Unix ms, database clock) ids due later. */
export interface WakeupPayload {
  queue: string;
  ids: string[];
  runAtMs?: number[];
}

/** Reads a payload sent by these statements; undefined for anything else on the channel. */
export function parseWakeupPayload(payload: string): WakeupPayload | undefined {
  const later = payload.startsWith("@");
  const text = later ? payload.slice(1) : payload;
  const colon = text.indexOf(":");
  if (colon <= 0 || colon === text.length - 1) return undefined;
  const queue = text.slice(0, colon);
  const parts = text.slice(colon + 1).split(",");
  if (!later) return { queue, ids: parts };
  const ids: string[] = [];
  const runAtMs: number[] = [];
  for (const part of parts) {
    const slash = part.indexOf("/");
    const ms = Number(part.slice(slash + 1));
    if (slash <= 0 || part.length === slash + 1 || !Number.isFinite(ms)) return undefined;
    ids.push(part.slice(0, slash));
    runAtMs.push(ms);
  }
  return { queue, ids, runAtMs };
}

/** Reads the database's clock, in Unix ms. */
export const CLOCK_SQL = "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS now";
