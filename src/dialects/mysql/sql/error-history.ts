// SQL fragment: the `errors` column with one more failed attempt appended, the oldest dropped past the limit, so the
// history stays bounded (see store/error-history.ts). Every write that sets last_error from a failure uses it.

import { ERROR_HISTORY_LIMIT } from "../../../store/error-history.js";
import { NOW } from "./values.js";

/**
 * The errors array of the updated row plus {attempt: attempts, error, at: now}. `errorSql` is an SQL text expression
 * that must not read last_error: MySQL evaluates SET assignments left to right, so it may already hold the new text.
 */
export function appendError(errorSql: string): string {
  const errors = `COALESCE(errors, JSON_ARRAY())`;
  return `JSON_ARRAY_APPEND(CASE WHEN JSON_LENGTH(${errors}) >= ${ERROR_HISTORY_LIMIT} THEN JSON_REMOVE(${errors}, '$[0]') ELSE ${errors} END,
    '$', JSON_OBJECT('attempt', attempts, 'error', ${errorSql}, 'at', DATE_FORMAT(${NOW}, '%Y-%m-%dT%H:%i:%s.%fZ')))`;
}
