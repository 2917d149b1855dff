// SQL fragment: the `errors` column with one more failed attempt appended, the oldest dropped past the limit, so the
// history stays bounded (see store/error-history.ts). Every write that sets last_error from a failure uses it.

import { ERROR_HISTORY_LIMIT } from "../../../store/error-history.js";

/** The errors array of row `t` plus {attempt: t.attempts, error, at: now()}; `errorSql` is an SQL text expression. */
export function appendError(errorSql: string): string {
  const errors = `COALESCE(t.errors, '[]'::jsonb)`;
  return `(CASE WHEN jsonb_array_length(${errors}) >= ${ERROR_HISTORY_LIMIT} THEN ${errors} - 0 ELSE ${errors} END)
    || jsonb_build_array(jsonb_build_object('attempt', t.attempts, 'error', ${errorSql},
         'at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')))`;
}
