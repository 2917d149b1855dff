// Turns one enqueue call (name, payload, options) into a checked row, or throws a typed error.
// Nothing reaches the database unless every check here passed.

import type { TaskDefinition, TaskRegistry } from "../define-tasks.js";
import { TaskDefinitionError, TaskOptionsError, TaskPayloadError, TaskPayloadTooLargeError, UnknownTaskError } from "../errors.js";
import { queueNameProblem } from "../names.js";
import { isAsyncSchemaError, parsePayloadNow, type ParsedPayload } from "../payload-validation.js";
import type { PreparedTask } from "../store/enqueue-rows.js";
import { uuidv7 } from "../uuid.js";

/** Per-call options of enqueue. Each overrides the task definition's default. */
export interface EnqueueOptions {
  /** Run no earlier than this many milliseconds after the commit (database clock). Default 0. Not with `runAt`. */
  delayMs?: number;
  /** Run no earlier than this time. Up to one minute in the past is accepted (and runs now); further back throws. Not with `delayMs`. */
  runAt?: Date;
  /** Higher runs first among due tasks of the same queue. Integer. Default: the task's priority, else 0. */
  priority?: number;
  /** Dedupe key: while a task with this key exists, enqueueing the same key returns that task instead of a new one. */
  key?: string;
  /** Runs before the task goes dead. Default: the task's maxAttempts, else 5. */
  maxAttempts?: number;
  /** Queue to route the task to. Default: the task's queue, else "default". */
  queue?: string;
}

const OPTION_NAMES = new Set(["delayMs", "runAt", "priority", "key", "maxAttempts", "queue"]);
const INT4_MAX = 2 ** 31 - 1;
const MAX_DELAY_MS = 10 * 365 * 24 * 3600 * 1000;
const RUN_AT_PAST_TOLERANCE_MS = 60_000;
const KEY_MAX_LENGTH = 512;

export const DEFAULT_QUEUE = "default";
const DEFAULT_MAX_ATTEMPTS = 5;

/** Checks a call against the registry and returns the row to insert. Throws TaskQueueError subclasses. */
export function prepareTask(tasks: TaskRegistry, name: string, payload: unknown, options: EnqueueOptions | undefined, maxPayloadBytes: number): PreparedTask {
  const definition = Object.hasOwn(tasks, name) ? tasks[name] : undefined;
  if (!definition) throw new UnknownTaskError(String(name), Object.keys(tasks));
  const opts = checkOptionsShape(name, options);

  let json: string | undefined;
  try {
    json = JSON.stringify(payload);
  } catch (error) {
    throw new TaskPayloadError(name, [{ path: [], message: `not serialisable as JSON (${(error as Error).message})` }]);
  }
  if (json === undefined) throw new TaskPayloadError(name, [{ path: [], message: "payload is undefined; pass a JSON value" }]);
  const bytes = Buffer.byteLength(json);
  if (bytes > maxPayloadBytes) throw new TaskPayloadTooLargeError(name, bytes, maxPayloadBytes);
  // Validate what the worker will see: the payload after a JSON round trip (a Date or undefined does not survive it).
  const parsed = validate(name, definition, JSON.parse(json));
  if (!parsed.success) throw new TaskPayloadError(name, parsed.error.issues);

  const queue = opts.queue ?? definition.queue ?? DEFAULT_QUEUE;
  const queueProblem = queueNameProblem(queue);
  if (queueProblem) throw new TaskOptionsError(name, "queue", `${queueProblem}.`);

  return {
    id: uuidv7(),
    name,
    queue,
    json,
    priority: checkInteger(name, "priority", opts.priority ?? definition.priority ?? 0, -INT4_MAX, INT4_MAX),
    delayMs: checkDelay(name, opts.delayMs),
    runAt: checkRunAt(name, opts.runAt, opts.delayMs),
    maxAttempts: checkInteger(name, "maxAttempts", opts.maxAttempts ?? definition.maxAttempts ?? DEFAULT_MAX_ATTEMPTS, 1, INT4_MAX),
    key: checkKey(name, opts.key),
    concurrencyKey: concurrencyKeyOf(name, definition, parsed.data),
  };
}

/** The concurrency key of a task whose definition has `concurrency.key`, from the validated payload; else null. */
function concurrencyKeyOf(name: string, definition: TaskDefinition, payload: unknown): string | null {
  const keyOf = definition.concurrency?.key;
  if (keyOf === undefined) return null;
  const key: unknown = keyOf(payload);
  if (typeof key !== "string" || key.length === 0 || key.length > CONCURRENCY_KEY_MAX_LENGTH) {
    throw new TaskOptionsError(
      name,
      "concurrency.key",
      `the definition's concurrency.key(payload) must return a non-empty string of at most ${CONCURRENCY_KEY_MAX_LENGTH} characters, got ${JSON.stringify(key)}.`,
    );
  }
  return key;
}

/** The concurrency_key column holds this many characters (VARCHAR(200) on MySQL). */
const CONCURRENCY_KEY_MAX_LENGTH = 200;

function checkOptionsShape(name: string, options: EnqueueOptions | undefined): EnqueueOptions {
  if (options === undefined) return {};
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new TaskOptionsError(name, "options", `expected an object such as { delayMs: 1000 }, got ${JSON.stringify(options)}.`);
  }
  for (const option of Object.keys(options)) {
    if (!OPTION_NAMES.has(option)) {
      throw new TaskOptionsError(name, option, `unknown option. Use one of: ${[...OPTION_NAMES].join(", ")}.`);
    }
  }
  return options;
}

function checkInteger(name: string, option: string, value: unknown, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new TaskOptionsError(name, option, `must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}.`);
  }
  return value;
}

function checkDelay(name: string, delayMs: unknown): number {
  if (delayMs === undefined) return 0;
  if (typeof delayMs !== "number" || !Number.isFinite(delayMs) || delayMs < 0 || delayMs > MAX_DELAY_MS) {
    throw new TaskOptionsError(name, "delayMs", `must be a number of milliseconds from 0 to ${MAX_DELAY_MS} (10 years), got ${JSON.stringify(delayMs)}.`);
  }
  return Math.round(delayMs);
}

function checkRunAt(name: string, runAt: unknown, delayMs: unknown): Date | null {
  if (runAt === undefined) return null;
  if (delayMs !== undefined) throw new TaskOptionsError(name, "runAt", "give either runAt or delayMs, not both.");
  if (!(runAt instanceof Date) || Number.isNaN(runAt.getTime())) {
    throw new TaskOptionsError(name, "runAt", `must be a valid Date, got ${JSON.stringify(runAt)}.`);
  }
  const pastBy = Date.now() - runAt.getTime();
  if (pastBy > RUN_AT_PAST_TOLERANCE_MS) {
    throw new TaskOptionsError(
      name,
      "runAt",
      `${runAt.toISOString()} is ${Math.round(pastBy / 1000)} s in the past (tolerance 60 s). Pass a future time, or omit runAt to run now.`,
    );
  }
  return runAt;
}

function checkKey(name: string, key: unknown): string | null {
  if (key === undefined || key === null) return null;
  if (typeof key !== "string" || key.length === 0 || key.length > KEY_MAX_LENGTH) {
    throw new TaskOptionsError(name, "key", `must be a non-empty string of at most ${KEY_MAX_LENGTH} characters, got ${JSON.stringify(key)}.`);
  }
  return key;
}

/** The payload's validation, with the one error zod throws instead of returning (an async schema) turned into a definition error. */
function validate(name: string, definition: TaskDefinition, value: unknown): ParsedPayload {
  try {
    return parsePayloadNow(definition, value);
  } catch (error) {
    if (isAsyncSchemaError(error)) {
      throw new TaskDefinitionError(
        name,
        "its payload schema is asynchronous (an async refine, superRefine or transform), and enqueue validates synchronously " +
          "inside your transaction. Make the schema synchronous and do asynchronous checks in the handler.",
      );
    }
    throw error;
  }
}
