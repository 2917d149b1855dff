// How a value that a caller passed or a handler threw reads inside a message: numbers and the like as themselves,
// strings and objects as JSON, and what JSON cannot hold (a cycle, a BigInt inside, a function) through util.inspect.
import { inspect } from "node:util";

/** The value in words, never "[object Object]". */
export function valueText(value: unknown): string {
  if (value === undefined || value === null || typeof value === "number" || typeof value === "boolean" || typeof value === "bigint" || typeof value === "symbol") {
    return String(value);
  }
  try {
    const json = JSON.stringify(value);
    if (json !== undefined) return json;
  } catch {
    // A cycle or a BigInt inside: inspect shows it below.
  }
  return inspect(value, { depth: 4, breakLength: Infinity });
}
