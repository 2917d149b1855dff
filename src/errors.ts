// Error classes of prisma-task-queue, each with a stable code.
// Messages name the bad value and the fix, so a log line is enough to act on.

import { valueText } from "./value-text.js";

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
  | "TASK_INLINE_RUN_FAILED"
  | "TASK_ENQUEUE_WOULD_WAIT"
  | "TASK_CLIENT_UNUSABLE"
  | "TASK_BROKER_FAILED"
  | "TASK_DEAD_NOT_ANNOUNCED"
  | "TASK_TABLE_UNREADABLE"
  | "TASK_PACKAGE_FILES_MISSING"
  | "MIGRATIONS_FOLDER_INVALID"
  | "MIGRATION_HALF_APPLIED"
  | "MIGRATION_EDITED"
  | "MIGRATION_FOREIGN_TABLE"
  | "MIGRATION_BASELINE_MISMATCH"
  | "MIGRATION_NOT_FAILED"
  | "MIGRATION_FAILED"
  | "MIGRATION_LOCKED"
  | "TASK_NOT_A_PRISMA_CLIENT"
  | "TASK_STORE_CLOSED"
  | "TASK_STOPPED"
  | "TASK_KEY_VANISHED"
  | "TASK_STORE_NO_TRANSACTION"
  | "TASK_STEP_INVALID"
  | "TASK_WORKFLOW_NONDETERMINISM"
  | "TASK_CHILD_FAILED"
  | "TASK_EVENT_INVALID"
  | "TASK_INTERNAL";

/** Base class: every error this package throws on purpose is a TaskQueueError with a stable `code`. */
export class TaskQueueError extends Error {
  readonly code: TaskQueueErrorCode;
  constructor(code: TaskQueueErrorCode, message: string) {
    super(message);
    this.name = new.target.name;
    this.code = code;
  }
}

/** The task table cannot be read: missing, of another shape, or the database refused. The message says what to do. */
export class TaskTableUnreadableError extends TaskQueueError {
  constructor(problem: string) {
    super("TASK_TABLE_UNREADABLE", `cannot read the task table: ${problem}`);
  }
}

/** This package's own files (its package.json) are not where they should be: the installed copy is incomplete. */
export class PackageFilesMissingError extends TaskQueueError {
  constructor(problem: string) {
    super("TASK_PACKAGE_FILES_MISSING", `prisma-task-queue: ${problem}. Reinstall the package.`);
  }
}

/** The payload does not match the task's zod schema. `issues` holds zod's findings. */
export class TaskPayloadError extends TaskQueueError {
  constructor(
    readonly taskName: string,
    readonly issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>,
  ) {
    const detail = issues.map((issue) => `${issue.path.length ? issue.path.map(String).join(".") : "(root)"}: ${issue.message}`).join("; ");
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
      `Unknown task "${taskName}". Known tasks: ${known.length ? known.map((k) => `"${k}"`).join(", ") : "(none)"}. ` + `Add it to defineTasks() or fix the name.`,
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
 * An enqueue on the client itself (not on the transaction client `tx`) from inside that client's own open transaction,
 * on a client with one connection (SQLite): it would wait for the transaction that is waiting for it.
 */
export class TaskEnqueueWouldWaitError extends TaskQueueError {
  constructor(readonly taskNames: readonly string[]) {
    super(
      "TASK_ENQUEUE_WOULD_WAIT",
      `enqueue of ${taskNames.map((name) => JSON.stringify(name)).join(", ")} was called on the client while a transaction of the same ` +
        `client is open in this call: on SQLite the client has one connection, so this enqueue would wait for that transaction, ` +
        `which waits for it. Enqueue through the transaction client (tx.task.enqueue inside $transaction(async (tx) => ...)), ` +
        `or after the transaction has ended.`,
    );
  }
}

/**
 * A SQLite client that can run no further transaction: under Prisma 6 a failed COMMIT leaves the adapter's transaction
 * lock taken for good, so its next transaction would wait forever. Every later transaction and enqueue of it fails so.
 */
export class TaskClientUnusableError extends TaskQueueError {
  constructor(prismaVersion: string, cause: unknown) {
    super(
      "TASK_CLIENT_UNUSABLE",
      `a COMMIT of this SQLite client failed (${String((cause as Error)?.message ?? cause)
        .split("\n")
        .filter(Boolean)
        .at(-1)}), and ` +
        `Prisma ${prismaVersion} keeps @prisma/adapter-better-sqlite3's transaction lock after a failed COMMIT, so this client ` +
        `would wait forever for its next transaction. Create a new PrismaClient and extend it again, or upgrade to Prisma 7, ` +
        `which releases the lock.`,
    );
    (this as { cause?: unknown }).cause = cause;
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

/** The migrations folder cannot be used: missing, a migration without its migration.sql, or locked to another database. */
export class MigrationsFolderError extends TaskQueueError {
  constructor(
    readonly dir: string,
    problem: string,
  ) {
    super("MIGRATIONS_FOLDER_INVALID", `The migrations folder ${dir} ${problem}`);
  }
}

/** `_prisma_migrations` records migrations as started but never finished: a failed run may have left them half-applied. */
export class MigrationHalfAppliedError extends TaskQueueError {
  constructor(readonly migrations: ReadonlyArray<{ name: string; startedAt: string; logs: string | null }>) {
    const list = migrations.map((m) => `${m.name} (started ${m.startedAt}${m.logs ? `; its error: ${oneLine(m.logs)}` : ""})`).join(", ");
    const first = migrations[0]!.name;
    super(
      "MIGRATION_HALF_APPLIED",
      `_prisma_migrations records ${list} as started but not finished: a failed run may have applied part of it. ` +
        `Compare the database with its migration.sql and undo what it applied, then mark it rolled back with ` +
        `\`task-runner migrate --rolled-back ${first}\` (or \`npx prisma migrate resolve --rolled-back ${first}\`) and run \`task-runner migrate\` again to apply it.`,
    );
  }
}

/** A migration that ran was edited afterwards: its file no longer has the checksum `_prisma_migrations` recorded. */
export class MigrationEditedError extends TaskQueueError {
  constructor(readonly migrations: ReadonlyArray<{ name: string; file: string; recorded: string; current: string }>) {
    const list = migrations.map((m) => `${m.file} (recorded checksum ${m.recorded.slice(0, 12)}…, file now ${m.current.slice(0, 12)}…)`).join(", ");
    super(
      "MIGRATION_EDITED",
      `${list} changed after it was applied: an applied migration must stay as it ran, or the next database built from ` +
        `the folder differs from this one. Restore the file as it was applied (e.g. \`git checkout -- <file>\`) and put the ` +
        `change in a new migration folder.`,
    );
  }
}

/** A table that pending migrations create exists already, but no record says a migration created it. */
export class MigrationForeignTableError extends TaskQueueError {
  constructor(
    readonly tables: readonly string[],
    readonly migrations: readonly string[],
  ) {
    super(
      "MIGRATION_FOREIGN_TABLE",
      `${tables.map((t) => `table "${t}"`).join(" and ")} already ${tables.length === 1 ? "exists" : "exist"}, but _prisma_migrations ` +
        `records none of the migrations that create ${tables.length === 1 ? "it" : "them"} (${migrations.join(", ")}): it was created ` +
        `outside Prisma Migrate (its SQL run with the database's client, or an older setup). Run \`task-runner migrate --baseline\` to ` +
        `record the migrations the table already matches without running them (its columns are checked first); the ones after are then applied.`,
    );
  }
}

/** A value passed where a Prisma client or transaction client belongs (the `prisma` option, `store.through()`) is none. */
export class NotAPrismaClientError extends TaskQueueError {
  constructor(
    readonly taker: string,
    value: unknown,
  ) {
    super(
      "TASK_NOT_A_PRISMA_CLIENT",
      `${taker} takes a Prisma client or transaction client (one with $queryRawUnsafe and $executeRawUnsafe), but was given ${shortText(value)}. ` +
        `Pass your PrismaClient (extended or not), or the tx that prisma.$transaction(async (tx) => ...) hands its callback.`,
    );
  }
}

/** A store opened with openStore() was used after its close(). */
export class TaskStoreClosedError extends TaskQueueError {
  constructor(readonly store: string) {
    super("TASK_STORE_CLOSED", `${store} is closed: its close() was called. Open a new store with openStore() for further work, or close it only after its last use.`);
  }
}

/** transaction() on a store bound to a Prisma client that cannot open a transaction of its own there. */
export class TaskStoreNoTransactionError extends TaskQueueError {
  constructor() {
    super(
      "TASK_STORE_NO_TRANSACTION",
      `transaction() cannot open a transaction on this store: it is bound to a Prisma transaction client (on PostgreSQL, to any ` +
        `Prisma client), whose statements run in the app's own transactions. Call transaction() on a store from openStore(url), ` +
        `or run the work in prisma.$transaction(async (tx) => ...) through store.through(tx).`,
    );
  }
}

/** start() or runOnce() on a worker or cleaner after its stop(): neither starts again. */
export class TaskQueueStoppedError extends TaskQueueError {
  constructor(
    readonly stopped: string,
    create: string,
  ) {
    super("TASK_STOPPED", `${stopped} was stopped and does not start again; create a new one with ${create} to start again.`);
  }
}

/**
 * An enqueue with a key met a task holding that key that it could not read back: the other task was deleted (or its
 * key released) between the insert and the read. Nothing was enqueued for that key.
 */
export class TaskKeyVanishedError extends TaskQueueError {
  constructor(readonly key: string) {
    super(
      "TASK_KEY_VANISHED",
      `Task with key ${JSON.stringify(key)} vanished while enqueueing: the insert met a task holding that key, which was ` +
        `gone when it was read back, so nothing was enqueued for it. Retry the enqueue (or its transaction).`,
    );
  }
}

/** A state that only a bug in prisma-task-queue can lead to. */
export class TaskQueueInternalError extends TaskQueueError {
  constructor(problem: string) {
    super("TASK_INTERNAL", `prisma-task-queue internal error: ${problem}. This is a bug in prisma-task-queue; please report it with this message.`);
  }
}

/** `--baseline` found no migration whose columns the existing table has. */
export class MigrationBaselineError extends TaskQueueError {
  constructor(readonly differences: ReadonlyArray<{ table: string; migration: string; missing: readonly string[]; extra: readonly string[]; absent: boolean }>) {
    const list = differences
      .map((d) =>
        d.absent
          ? `table "${d.table}" (created by ${d.migration}) does not exist`
          : `table "${d.table}" does not match ${d.migration}:` +
            (d.missing.length ? ` it lacks ${quoteList(d.missing)}` : "") +
            (d.missing.length && d.extra.length ? " and" : "") +
            (d.extra.length ? ` it has ${quoteList(d.extra)}, which the migrations do not create` : ""),
      )
      .join("; ");
    super(
      "MIGRATION_BASELINE_MISMATCH",
      `Cannot baseline: ${list}. Nothing was recorded. Bring the table to the columns of one of its migrations by hand ` +
        `(for a missing newer column, run that part of the newer migration's SQL), then run \`task-runner migrate --baseline\` again.`,
    );
  }
}

/** `--rolled-back <name>` names a migration that is not recorded as failed. */
export class MigrationNotFailedError extends TaskQueueError {
  constructor(
    readonly migration: string,
    state: "finished" | "unrecorded",
  ) {
    super(
      "MIGRATION_NOT_FAILED",
      `--rolled-back ${migration}: _prisma_migrations ` +
        (state === "finished" ? `records it as finished, not failed` : `has no unfinished record of it`) +
        `, so there is nothing to roll back. Pass the name of a migration that a failed run left started but not finished.`,
    );
  }
}

/** A migration's SQL failed. `partial`: the dialect could not roll it back (MySQL commits each DDL statement). */
export class MigrationFailedError extends TaskQueueError {
  constructor(
    readonly migration: string,
    readonly databaseError: string,
    readonly partial: boolean,
  ) {
    super(
      "MIGRATION_FAILED",
      partial
        ? `Migration ${migration} failed: ${databaseError}. MySQL commits each DDL statement, so the statements before the failing one ` +
            `are applied, and _prisma_migrations records the migration as started but not finished. Undo what it applied, fix its ` +
            `migration.sql, then run \`task-runner migrate --rolled-back ${migration}\` and \`task-runner migrate\` again.`
        : `Migration ${migration} failed and was rolled back, so nothing of it is applied or recorded: ${databaseError}. Fix its ` +
            `migration.sql (it never ran, so changing it is safe) and run \`task-runner migrate\` again.`,
    );
  }
}

/** Another migrator (`task-runner migrate` or `prisma migrate`) holds the migration lock or recorded the migration meanwhile. */
export class MigrationLockedError extends TaskQueueError {
  constructor(detail: string) {
    super("MIGRATION_LOCKED", `${detail}: another \`task-runner migrate\` or \`prisma migrate\` is running on this database. Wait for it to end and run again.`);
  }
}

/** A value as a message shows it: its text, cut to 120 characters. */
function shortText(value: unknown): string {
  const text = valueText(value);
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

function oneLine(text: string): string {
  const line = text.trim().split("\n")[0]!;
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

function quoteList(names: readonly string[]): string {
  return names.map((name) => `"${name}"`).join(", ");
}
