// Error classes of prisma-task-queue, each with a stable code.
// Messages name the bad value and the fix, so a log line is enough to act on.

export type TaskQueueErrorCode =
  | "TASK_PAYLOAD_INVALID"
  | "TASK_PAYLOAD_TOO_LARGE"
  | "TASK_UNKNOWN"
  | "TASK_OPTIONS_INVALID"
  | "TASK_DEFINITION_INVALID"
  | "TASK_QUEUE_CONFIG_INVALID"
  | "TASK_PACKAGE_MISSING"
  | "TASK_UNRECOVERABLE"
  | "TASK_TIMEOUT"
  | "TASK_LEASE_LOST"
  | "WORKER_SHUTTING_DOWN"
  | "TASK_ASSERTION_FAILED"
  | "TASK_INLINE_RUN_FAILED";

/** Base class: every error this package throws on purpose is a TaskQueueError with a stable `code`. */
export class TaskQueueError extends Error {
  readonly code: TaskQueueErrorCode;
  constructor(code: TaskQueueErrorCode, message: string) {
    super(message);
    this.name = new.target.name;
    this.code = code;
  }
}

/** The payload does not match the task's zod schema. `issues` holds zod's findings. */
export class TaskPayloadError extends TaskQueueError {
  constructor(
    readonly taskName: string,
    readonly issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>,
  ) {
    const detail = issues
      .map((issue) => `${issue.path.length ? issue.path.map(String).join(".") : "(root)"}: ${issue.message}`)
      .join("; ");
    super("TASK_PAYLOAD_INVALID", `Invalid payload for task "${taskName}": ${detail}. Fix the payload to match the task's schema.`);
  }
}

/** The payload, serialised as JSON, is larger than `maxPayloadBytes`. */
export class TaskPayloadTooLargeError extends TaskQueueError {
  constructor(
    readonly taskName: string,
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(
      "TASK_PAYLOAD_TOO_LARGE",
      `Payload for task "${taskName}" is ${bytes} bytes, over the limit of ${limit} bytes. ` +
        `Store large data in your own table and pass its id, or raise maxPayloadBytes in taskQueue().`,
    );
  }
}

/** A task name that the registry given to taskQueue()/createWorker() does not define. */
export class UnknownTaskError extends TaskQueueError {
  constructor(
    readonly taskName: string,
    known: readonly string[],
  ) {
    super(
      "TASK_UNKNOWN",
      `Unknown task "${taskName}". Known tasks: ${known.length ? known.map((k) => `"${k}"`).join(", ") : "(none)"}. ` +
        `Add it to defineTasks() or fix the name.`,
    );
  }
}

/** An enqueue option that is out of range or of the wrong type. */
export class TaskOptionsError extends TaskQueueError {
  constructor(
    readonly taskName: string,
    readonly option: string,
    problem: string,
  ) {
    super("TASK_OPTIONS_INVALID", `Invalid option "${option}" for task "${taskName}": ${problem}`);
  }
}

/** A task definition passed to defineTasks() that cannot work. */
export class TaskDefinitionError extends TaskQueueError {
  constructor(
    readonly taskName: string,
    problem: string,
  ) {
    super("TASK_DEFINITION_INVALID", `Invalid definition of task "${taskName}": ${problem}`);
  }
}

/** An option of taskQueue(), createWorker() or the runner config that cannot work. */
export class TaskQueueConfigError extends TaskQueueError {
  constructor(
    readonly option: string,
    problem: string,
  ) {
    super("TASK_QUEUE_CONFIG_INVALID", `Invalid option "${option}": ${problem}`);
  }
}

/**
 * An optional peer dependency that the feature in use needs (a database driver, the RabbitMQ client, the dashboard's web
 * framework, tsx) is not installed. The message says what needs it and the command that installs it.
 */
export class MissingPackageError extends TaskQueueError {
  constructor(
    readonly packageName: string,
    neededFor: string,
    fix: string,
    options?: { cause?: unknown },
  ) {
    super("TASK_PACKAGE_MISSING", `${neededFor} the ${packageName} package, an optional peer dependency of prisma-task-queue that is not installed: ${fix}`);
    if (options && "cause" in options) (this as { cause?: unknown }).cause = options.cause;
  }
}

/**
 * Throw from a handler to say "retrying will not help": the task goes straight to dead, whatever attempts remain.
 */
export class UnrecoverableError extends TaskQueueError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("TASK_UNRECOVERABLE", message);
    if (options && "cause" in options) (this as { cause?: unknown }).cause = options.cause;
  }
}
