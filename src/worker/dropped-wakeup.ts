// The log line for a wake-up the worker acks without running anything: info for the ones worth a look, debug for
// the ordinary races, always with the task's name and queue when its row exists.

import type { Logger } from "../logger.js";
import type { ClaimByIdResult } from "../store/task-writes.js";

/**
 * Info for "missing" (no such row: it never committed, or it was deleted) and "not-ours" (a task this worker has no
 * handler or queue for, e.g. written by another version of the app: it stays pending for a worker that has); debug for
 * "not-pending", "not-due" and "locked" (already claimed or finished, or not due yet).
 */
export function logDroppedWakeup(logger: Logger, result: ClaimByIdResult & { claimed: null }, takes: { names: readonly string[]; queues: readonly string[] }): void {
  const { id, reason, name, queue } = result;
  const fields = { taskId: id, reason, ...(name !== undefined && { taskName: name, queue }) };
  if (reason === "missing") {
    logger.info("wake-up dropped", { ...fields, detail: "no such task: it never committed, or it was deleted" });
  } else if (reason === "not-ours") {
    logger.info("wake-up dropped", {
      ...fields,
      detail:
        `this worker does not take task "${name}" in queue "${queue}" (it takes ${takes.names.join(", ")} in ${takes.queues.join(", ")}); ` +
        "it stays pending for a worker that does",
    });
  } else {
    logger.debug("wake-up dropped", fields);
  }
}
