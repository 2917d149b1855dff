// Validation of a RabbitMQ URL option: one amqp:// or amqps:// URL, or several separated by commas (the nodes of a
// cluster, tried in turn). Shared so that every part that takes an amqpUrl refuses a wrong one at construction.

import { redactUrl } from "./redact-url.js";

const AMQP_URL = /^amqps?:\/\//;

/** The node URLs of an amqpUrl value: split at commas, trimmed, empty entries dropped. */
export function amqpUrls(value: string): string[] {
  return value
    .split(",")
    .map((url) => url.trim())
    .filter((url) => url !== "");
}

/** Why `value` is not a usable RabbitMQ URL (or comma-separated list of them), or undefined when it is. Passwords are shown as ***. */
export function amqpUrlProblem(value: unknown): string | undefined {
  const urls = typeof value === "string" ? amqpUrls(value) : [];
  const bad = urls.find((url) => !AMQP_URL.test(url));
  if (urls.length > 0 && bad === undefined) return undefined;
  if (urls.length <= 1) return `must be an AMQP URL (amqp:// or amqps://) such as amqp://guest:guest@127.0.0.1:5672, got ${shown(value)}`;
  return (
    `must be AMQP URLs (amqp:// or amqps://) separated by commas, such as amqp://guest:guest@127.0.0.1:5672,amqp://guest:guest@127.0.0.1:5673; ` +
    `${shown(bad)} in ${shown(value)} is not one (a comma inside a password is written %2C)`
  );
}

/** The list as it may appear in logs and errors: each URL with its password hidden, joined by commas. */
export function redactUrls(urls: readonly string[]): string {
  return urls.map((url) => redactUrl(url)).join(",");
}

function shown(value: unknown): string {
  if (typeof value !== "string") return JSON.stringify(value) ?? String(value);
  const urls = amqpUrls(value);
  if (urls.some((url) => hasPassword(url))) return JSON.stringify(urls.map((url) => (hasPassword(url) ? redactUrl(url) : url)).join(","));
  return JSON.stringify(value);
}

function hasPassword(url: string): boolean {
  try {
    return new URL(url).password !== "";
  } catch {
    return false; // not a URL at all: shown as given
  }
}
