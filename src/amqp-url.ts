// Validation of a RabbitMQ URL option: the same rule as createWorker's amqpUrl check (amqp:// or amqps://).
// Shared so that every part that takes an amqpUrl can refuse a wrong one at construction, not at the first connect.

import { redactUrl } from "./redact-url.js";

const AMQP_URL = /^amqps?:\/\//;

/** Why `url` is not a usable RabbitMQ URL, or undefined when it is. A password in the bad value is shown as ***. */
export function amqpUrlProblem(url: unknown): string | undefined {
  if (typeof url === "string" && AMQP_URL.test(url)) return undefined;
  return `must be an AMQP URL (amqp:// or amqps://) such as amqp://guest:guest@127.0.0.1:5672, got ${shown(url)}`;
}

function shown(value: unknown): string {
  if (typeof value !== "string") return JSON.stringify(value) ?? String(value);
  try {
    if (new URL(value).password) return JSON.stringify(redactUrl(value));
  } catch {
    // not a URL at all: shown as given
  }
  return JSON.stringify(value);
}
