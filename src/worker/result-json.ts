// Serialises a handler's return value for the result column: undefined becomes null, and a value that JSON or
// PostgreSQL's jsonb cannot hold becomes null with the reason, so a success is never lost over its result.

/** Lone UTF-16 surrogates as JSON.stringify escapes them; jsonb rejects them, like \u0000. */
const UNSTORABLE = /\\u0000|\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f][0-9a-f]{2})|(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f][0-9a-f]{2}/i;

/** The JSON text to store, and why it is "null" when the value could not be stored. */
export function resultJson(value: unknown): { json: string; problem?: string } {
  if (value === undefined) return { json: "null" };
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    return { json: "null", problem: `not serialisable as JSON: ${(error as Error).message}` };
  }
  if (json === undefined) return { json: "null", problem: `a ${typeof value} is not a JSON value` };
  if (UNSTORABLE.test(json)) return { json: "null", problem: "holds \\u0000 or a lone surrogate, which PostgreSQL jsonb cannot store" };
  return { json };
}
