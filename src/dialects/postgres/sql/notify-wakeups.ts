// SQL units of PostgreSQL NOTIFY wake-ups: the CTE an insert adds to notify its due tasks inside the enqueuing
// transaction (they leave with the COMMIT; a rollback sends nothing), the re-send outside any app transaction, LISTEN.

import type { Db } from "../../../store/db.js";

/**
 * Ids per notification. A payload is `<queue>:<id>,<id>,…`: with a queue name of at most 100 bytes and 37 bytes per id,
 * 200 ids take at most 7,500 bytes, under NOTIFY's limit of 8,000.
 */
const NOTIFY_CHUNK_IDS = 200;

/**
 * A CTE named `notified` that sends one notification per queue and chunk of ids on channel `channelParam` (a `$n`
 * parameter; NULL sends nothing) for the rows of CTE `source` (columns id, queue, run_at) that are due now.
 * A statement that uses it must read it, with NOTIFIED_GUARD: PostgreSQL skips a CTE that nothing reads.
 */
export function notifiedCte(channelParam: string, source: string): string {
  return `notified AS (
  SELECT pg_notify(${channelParam}::text, queue || ':' || string_agg(id::text, ','))
  FROM (SELECT id, queue, (row_number() OVER (PARTITION BY queue) - 1) / ${NOTIFY_CHUNK_IDS} AS chunk
        FROM ${source} WHERE ${channelParam}::text IS NOT NULL AND run_at <= now()) AS due
  GROUP BY queue, chunk
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

/** The LISTEN statement. `channel` must be checked already (letters, digits, "_", "." and "-"; at most 63 bytes). */
export function listenSql(channel: string): string {
  return `LISTEN "${channel.replaceAll('"', '""')}"`;
}

/** Reads a payload sent by these statements; undefined for anything else on the channel. */
export function parseWakeupPayload(payload: string): { queue: string; ids: string[] } | undefined {
  const colon = payload.indexOf(":");
  if (colon <= 0 || colon === payload.length - 1) return undefined;
  return { queue: payload.slice(0, colon), ids: payload.slice(colon + 1).split(",") };
}
