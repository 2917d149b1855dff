// The body of a wake-up message: the ids of tasks that may be runnable. It carries no payload:
// the row is the truth, the message only says "look".

import { isTaskId } from "../../store/task-id.js";

/** Most ids one message carries; larger batches are split. */
export const MAX_IDS_PER_MESSAGE = 500;

export function encodeWakeup(ids: readonly string[]): Buffer {
  return Buffer.from(JSON.stringify({ ids }));
}

/** The ids in a message body, or a reason why the body is not a wake-up. */
export function decodeWakeup(body: Buffer): { ids: string[] } | { problem: string } {
  if (body.length === 0) return { problem: "empty body" };
  if (body.length > 64 * 1024) return { problem: `body of ${body.length} bytes is larger than any wake-up` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    return { problem: "body is not JSON" };
  }
  const ids = (parsed as { ids?: unknown } | null)?.ids;
  if (!Array.isArray(ids) || ids.length === 0) return { problem: "body has no ids array" };
  if (!ids.every(isTaskId)) return { problem: "ids are not all UUIDs" };
  return { ids };
}
