// The body of a wake-up message: the ids of tasks that may be runnable. It carries no payload:
// the row is the truth, the message only says "look".
// A wake-up of tasks due later adds `dueInMs`, one number per id: how long after the message left each task is due.
// A worker that does not know the field claims the ids at once, is told "not due" and drops them; the cleaner wakes
// those tasks when due, as it always did.

import { isTaskId } from "../../store/task-id.js";

/** Most ids one message carries; larger batches are split. */
export const MAX_IDS_PER_MESSAGE = 500;

/** A decoded wake-up: `dueInMs` (same length as `ids`) only for tasks due later. */
export interface DecodedWakeup {
  ids: string[];
  dueInMs?: number[];
}

export function encodeWakeup(ids: readonly string[], dueInMs?: readonly number[]): Buffer {
  return Buffer.from(JSON.stringify(dueInMs ? { ids, dueInMs } : { ids }));
}

/** The ids in a message body (and when they are due, for tasks due later), or a reason why it is not a wake-up. */
export function decodeWakeup(body: Buffer): DecodedWakeup | { problem: string } {
  if (body.length === 0) return { problem: "empty body" };
  if (body.length > 64 * 1024) return { problem: `body of ${body.length} bytes is larger than any wake-up` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    return { problem: "body is not JSON" };
  }
  const { ids, dueInMs } = (parsed ?? {}) as { ids?: unknown; dueInMs?: unknown };
  if (!Array.isArray(ids) || ids.length === 0) return { problem: "body has no ids array" };
  if (!ids.every(isTaskId)) return { problem: "ids are not all UUIDs" };
  if (dueInMs === undefined) return { ids };
  if (!Array.isArray(dueInMs) || dueInMs.length !== ids.length || !dueInMs.every((ms) => typeof ms === "number" && Number.isFinite(ms) && ms >= 0)) {
    return { problem: "dueInMs is not one number of milliseconds ≥ 0 per id" };
  }
  return { ids, dueInMs: dueInMs as number[] };
}
