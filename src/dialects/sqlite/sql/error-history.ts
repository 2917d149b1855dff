// SQL fragment: the `errors` column with one more failed attempt appended, the oldest dropped past the limit, so the
// history stays bounded (see store/error-history.ts). Every write that sets last_error from a failure uses it.

import { ERROR_HISTORY_LIMIT } from "../../../store/error-history.js";
import { NOW } from "../clock.js";

/** The errors array of the updated row plus {attempt: attempts, error, at: now}; `errorSql` is an SQL text expression. */
export function appendError(errorSql: string): string {
  const errors = `json(COALESCE(errors, '[]'))`;
  return `json_insert(CASE WHEN json_array_length(${errors}) >= ${ERROR_HISTORY_LIMIT} THEN json_remove(${errors}, '$[0]') ELSE ${errors} END,
    '$[#]', json_object('attempt', attempts, 'error', ${errorSql}, 'at', ${NOW}))`;
}
