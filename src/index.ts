// The public API of prisma-task-queue. Nothing else is exported from the package root.

export { defineTasks } from "./define-tasks.js";
export type {
  BackoffPolicy,
  PayloadInput,
  PlainTaskDefinition,
  RecoveryFunction,
  TaskConcurrency,
  TaskDefinition,
  TaskDefinitions,
  TaskPolicy,
  TaskName,
  TaskRecord,
  TaskRegistry,
  TaskStatus,
  TransactionalTaskDefinition,
} from "./define-tasks.js";
export type { ClientWith, TaskContext, TransactionClientOf, UntypedClient, UntypedTransactionClient } from "./task-context.js";
export { taskQueue } from "./task-queue.js";
export type { EnqueueItem, TaskModelMethods, TaskQueueExtension, TaskQueueHandle, TaskQueueOptions } from "./task-queue.js";
export type { EnqueueOptions } from "./enqueue/prepare.js";
export type { SentSignal, SignalMethod } from "./task-queue.js";
export type { ChildHandle, ChildOutcome, ChildrenWaitOptions, EventResult, StepInfo, WaitOptions, WorkflowSteps } from "./workflow/steps-api.js";
export { ChildTaskFailedError, StepError, TaskEventError, WorkflowNondeterminismError } from "./workflow/workflow-errors.js";
export type { ChildState, StepKind, StepRecord } from "./store/steps.js";
export type { TaskSchedule } from "./schedules/task-schedule.js";
export type { MissedSlotsPolicy } from "./schedules/missed-slots.js";
export type { EnqueuedTask } from "./enqueue/enqueued-task.js";
export {
  MissingPackageError,
  NotAPrismaClientError,
  TaskClientUnusableError,
  TaskDefinitionError,
  TaskEnqueueWouldWaitError,
  TaskKeyVanishedError,
  TaskOptionsError,
  TaskPayloadError,
  TaskPayloadTooLargeError,
  TaskQueueConfigError,
  TaskQueueError,
  TaskQueueInternalError,
  TaskQueueStoppedError,
  TaskStoreClosedError,
  TaskStoreNoTransactionError,
  TaskTableUnreadableError,
  UnknownTaskError,
  UnrecoverableError,
} from "./errors.js";
export { WakeupBrokerError } from "./wakeups/wakeup-errors.js";
export type { TaskQueueErrorCode } from "./errors.js";
export { jsonLogger, silentLogger } from "./logger.js";
export type { Logger } from "./logger.js";
export { createWorker, TaskLeaseLostError, TaskTimeoutError, WorkerShutdownError } from "./worker/create-worker.js";
export type { Worker, WorkerOptions } from "./worker/create-worker.js";
export type { QueueLimitOptions } from "./worker/queue-limits.js";
export type { QueueState, RateLimit } from "./store/queue-controls.js";
export { queueSignals, recommendWorkers, DEFAULT_SIGNAL_OPTIONS } from "./scaler/index.js";
export type { QueueSignal, QueueSignalOptions, WorkerInputs, WorkerRecommendation } from "./scaler/index.js";
export type { ActivityWindows, QueueActivity } from "./store/tallies.js";
export { openStore } from "./open-store.js";
export type { StoreOptions } from "./open-store.js";
export type { Store } from "./store/store.js";
export type { TaskErrorEntry } from "./store/error-history.js";
export type { DeadTaskNotification } from "./wakeups/dead-task-notification.js";
export type { BrokerState } from "./wakeups/transport.js";
export { createCleaner } from "./cleaner/create-cleaner.js";
export { runDueTasks } from "./serverless/run-due-tasks.js";
export type { DueTasksSummary, RunDueTasksOptions } from "./serverless/run-due-tasks.js";
export type { Cleaner, CleanerOptions, CleanerPass } from "./cleaner/create-cleaner.js";
export { defineConfig } from "./runner/config.js";
export type { RunnerCleanerOptions, RunnerConfig, RunnerWorkerOptions } from "./runner/config.js";
export { ConfigFileError } from "./runner/config-file-error.js";
export type { NamingOptions, WakeupsChoice } from "./naming-options.js";
export type { MetricsOptions } from "./metrics/metrics-options.js";
