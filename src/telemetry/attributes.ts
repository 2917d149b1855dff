// The names of every span, attribute and metric this package emits: the OpenTelemetry messaging conventions' where
// they have one, namespaced `prisma_task_queue.` for the rest. docs/observability.md lists them.

/** messaging.system: a custom value, as the conventions ask of a system they do not list. */
export const MESSAGING_SYSTEM = "prisma_task_queue";

/** The instrumentation scope's name (tracer and meter). */
export const SCOPE_NAME = "prisma-task-queue";

export const ATTR = {
  system: "messaging.system",
  operationName: "messaging.operation.name",
  operationType: "messaging.operation.type",
  destination: "messaging.destination.name",
  messageId: "messaging.message.id",
  batchCount: "messaging.batch.message_count",
  errorType: "error.type",
  taskName: "prisma_task_queue.task.name",
  attempt: "prisma_task_queue.task.attempt",
  outcome: "prisma_task_queue.task.outcome",
  dialect: "prisma_task_queue.dialect",
  transport: "prisma_task_queue.transport",
  count: "prisma_task_queue.count",
  stepName: "prisma_task_queue.step.name",
  stepKind: "prisma_task_queue.step.kind",
  stepSeq: "prisma_task_queue.step.seq",
  stepOutcome: "prisma_task_queue.step.outcome",
} as const;

export const METRIC = {
  sent: "messaging.client.sent.messages",
  consumed: "messaging.client.consumed.messages",
  processDuration: "messaging.process.duration",
  waitDuration: "prisma_task_queue.task.wait.duration",
  failures: "prisma_task_queue.task.failures",
  dead: "prisma_task_queue.task.dead",
  leaseRecoveries: "prisma_task_queue.lease.recoveries",
  republished: "prisma_task_queue.wakeups.republished",
} as const;

/** A low-cardinality name for a thrown value, for error.type: its class name ("TaskTimeoutError"), else "_OTHER". */
export function errorType(error: unknown): string {
  if (error instanceof Error) return error.constructor?.name || error.name || "Error";
  return "_OTHER";
}
