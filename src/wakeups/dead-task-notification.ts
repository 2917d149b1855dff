// The dead-task notification: what a worker or the cleaner announces when a task goes dead, written by one function.

/** Body of a message on the dead-letter exchange: which task died, after how many attempts, and why. */
export interface DeadTaskNotification {
  id: string;
  name: string;
  queue: string;
  attempts: number;
  lastError: string | null;
  /** "max-attempts", "unrecoverable", "invalid-payload", "unknown-task", "lease-expired" … */
  reason: string;
  at: string;
}

/** The notification for a dead task; `fallbackReason` stands when the task carries no reason. */
export function deadTaskNotification(
  task: { id: string; name: string; queue: string; attempts: number; lastError: string | null; reason?: string | null },
  fallbackReason: string,
): DeadTaskNotification {
  return {
    id: task.id,
    name: task.name,
    queue: task.queue,
    attempts: task.attempts,
    lastError: task.lastError,
    reason: task.reason ?? fallbackReason,
    at: new Date().toISOString(),
  };
}
