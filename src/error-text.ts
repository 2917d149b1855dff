// Turns whatever a handler threw into the text stored in last_error: message and stack for an Error,
// a string for anything else, cleaned of what PostgreSQL text cannot hold, and bounded in size.

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
    text = describe(thrown);
  }
  text = text.replace(/\u0000/g, "\\u0000").replace(LONE_SURROGATE, "\uFFFD");
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}… (truncated)` : text;
}

/** A one-line message for logs. */
export function errorMessage(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : errorText(thrown).split("\n")[0]!;
}

function describe(value: unknown): string {
  if (value === undefined || value === null || typeof value !== "object") return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
