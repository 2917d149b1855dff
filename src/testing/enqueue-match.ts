// Whether a committed enqueue matches what a test expects, and if not, the first difference in words. The payload is
// matched partially (the keys the test names, at any depth); functions and the asymmetric matchers of vitest, jest
// and others (expect.any(String), expect.stringContaining(…)) work anywhere inside it.

import type { CommittedEnqueue } from "../enqueue/committed-enqueues.js";
import { TaskQueueConfigError } from "../errors.js";
import { valueText } from "../value-text.js";

/** What an enqueue must look like; every field is optional and only the fields given are compared. */
export interface EnqueueMatch {
  /**
   * The payload, partially: an object matches when every key given matches (nested objects alike), an array when it
   * has the same length and each element matches. A function `(value) => boolean`, a RegExp (for strings), a Date
   * (the payload holds its ISO text) or an asymmetric matcher such as `expect.any(String)` may stand for any value.
   */
  payload?: unknown;
  /** The queue it was routed to. */
  queue?: string;
  /** The dedupe key; null for none. */
  key?: string | null;
  priority?: number;
  maxAttempts?: number;
  /** The delay the call asked for, in ms (0 when it gave none). */
  delayMs?: number;
  /** When the task becomes runnable, to the millisecond. */
  runAt?: Date;
  /** False for a call whose dedupe key matched an existing task (no row was written). */
  created?: boolean;
}

const FIELDS = ["payload", "queue", "key", "priority", "maxAttempts", "delayMs", "runAt", "created"] as const;

/** Throws TaskQueueConfigError naming the bad field of a match given to `where` (assertEnqueued(), …). */
export function checkMatch(match: unknown, where: string): EnqueueMatch {
  if (match === undefined) return {};
  if (typeof match !== "object" || match === null || Array.isArray(match)) {
    throw new TaskQueueConfigError(`${where} match`, `expected an object such as { payload: { id: 1 }, queue: "emails" }, got ${JSON.stringify(match)}.`);
  }
  for (const field of Object.keys(match)) {
    if (!(FIELDS as readonly string[]).includes(field)) {
      throw new TaskQueueConfigError(`${where} match.${field}`, `unknown field. Use one of: ${FIELDS.join(", ")}.`);
    }
  }
  const { runAt } = match as EnqueueMatch;
  if (runAt !== undefined && !(runAt instanceof Date && !Number.isNaN(runAt.getTime()))) {
    throw new TaskQueueConfigError(`${where} match.runAt`, `must be a valid Date, got ${JSON.stringify(runAt)}.`);
  }
  return match;
}

/** The first way `enqueue` differs from `match`, in words; undefined when it matches. */
export function mismatch(enqueue: CommittedEnqueue, match: EnqueueMatch): string | undefined {
  for (const field of FIELDS) {
    if (!(field in match) || match[field] === undefined) continue;
    if (field === "payload") {
      const difference = valueMismatch(match.payload, enqueue.payload, "payload");
      if (difference) return difference;
    } else if (field === "runAt") {
      if (match.runAt!.getTime() !== enqueue.runAt.getTime()) {
        return `runAt: expected ${match.runAt!.toISOString()}, got ${enqueue.runAt.toISOString()}`;
      }
    } else if (!Object.is(match[field], enqueue[field])) {
      return `${field}: expected ${show(match[field])}, got ${show(enqueue[field])}`;
    }
  }
  return undefined;
}

/** The expectation in words: ` with payload {…}, queue "emails"`, or "" when nothing but the name is expected. */
export function describeMatch(match: EnqueueMatch): string {
  const parts = FIELDS.filter((field) => match[field] !== undefined).map((field) => `${field} ${describeExpected(match[field])}`);
  return parts.length === 0 ? "" : ` with ${parts.join(", ")}`;
}

function valueMismatch(expected: unknown, actual: unknown, path: string): string | undefined {
  if (isAsymmetricMatcher(expected)) {
    return expected.asymmetricMatch(actual) ? undefined : `${path}: expected ${describeExpected(expected)}, got ${show(actual)}`;
  }
  if (typeof expected === "function") {
    return (expected as (value: unknown) => unknown)(actual) ? undefined : `${path}: ${show(actual)} does not satisfy ${describeExpected(expected)}`;
  }
  if (expected instanceof RegExp) {
    return typeof actual === "string" && expected.test(actual) ? undefined : `${path}: expected a string matching ${expected}, got ${show(actual)}`;
  }
  if (expected instanceof Date) {
    return actual === expected.toISOString() ? undefined : `${path}: expected ${JSON.stringify(expected.toISOString())}, got ${show(actual)}`;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: expected an array, got ${show(actual)}`;
    if (actual.length !== expected.length) return `${path}: expected ${expected.length} items, got ${actual.length}: ${show(actual)}`;
    for (let index = 0; index < expected.length; index++) {
      const difference = valueMismatch(expected[index], actual[index], `${path}[${index}]`);
      if (difference) return difference;
    }
    return undefined;
  }
  if (typeof expected === "object" && expected !== null) {
    if (typeof actual !== "object" || actual === null || Array.isArray(actual)) return `${path}: expected an object, got ${show(actual)}`;
    for (const [key, value] of Object.entries(expected)) {
      const inner = (actual as Record<string, unknown>)[key];
      if (value !== undefined && !Object.hasOwn(actual, key)) return `${path}.${key}: expected ${describeExpected(value)}, but the key is missing`;
      const difference = valueMismatch(value, inner, `${path}.${key}`);
      if (difference) return difference;
    }
    return undefined;
  }
  return Object.is(expected, actual) ? undefined : `${path}: expected ${show(expected)}, got ${show(actual)}`;
}

interface AsymmetricMatcher {
  asymmetricMatch(value: unknown): boolean;
  toString?(): string;
  toAsymmetricMatcher?(): string;
}

function isAsymmetricMatcher(value: unknown): value is AsymmetricMatcher {
  return typeof (value as { asymmetricMatch?: unknown } | null)?.asymmetricMatch === "function";
}

/** An expected value in words: JSON, with matchers, functions, RegExps and Dates named as such. */
function describeExpected(value: unknown): string {
  if (isAsymmetricMatcher(value)) return value.toAsymmetricMatcher?.() ?? String(value);
  if (typeof value === "function") return `the function ${value.name || "(anonymous)"}`;
  if (value instanceof RegExp) return String(value);
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return `[${value.map(describeExpected).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).filter(([, inner]) => inner !== undefined);
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${describeExpected(inner)}`).join(",")}}`;
  }
  return show(value);
}

/** A value in words, as JSON (cut at 300 characters). */
export function show(value: unknown): string {
  if (value === undefined) return "undefined";
  const text = valueText(value);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
