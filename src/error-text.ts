// Turns whatever a handler threw into the text stored in last_error: message and stack for an Error,
// readable text for anything else, cleaned of what PostgreSQL text cannot hold, and bounded in size.

import { valueText } from "./value-text.js";

const MAX_ERROR_CHARS = 8000;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** The last_error text for a thrown value. */
export function errorText(thrown: unknown): string {
  let text: string;
  if (thrown instanceof Error) {
    const stack = typeof thrown.stack === "string" ? thrown.stack : "";
    const head = `${thrown.name}: ${thrown.message}`;
    text = stack.includes(thrown.message) ? stack : stack ? `${head}\n${stack}` : head;
  } else if (typeof thrown === "string") {
    text = thrown;
  } else {
    // JSON when JSON can hold it, else util.inspect's text (a cycle reads <ref *1> { … [Circular *1] }), never "[object Object]".
    text = valueText(thrown);
  }
  text = text.replaceAll("\u0000", "\\u0000").replace(LONE_SURROGATE, "\uFFFD");
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}… (truncated)` : text;
}

/** A one-line message for logs. */
export function errorMessage(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : errorText(thrown).split("\n")[0]!;
}
