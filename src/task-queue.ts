// taskQueue(): the Prisma client extension. Adds enqueue/enqueueMany to the task model of the client and of every
// transaction client, and publishes wake-ups to RabbitMQ only after the surrounding transaction commits.

import { Prisma } from "@prisma/client/extension";
import { prismaStore } from "./dialects/index.js";
import { taskTable } from "./store/task-table.js";
import type { PayloadInput, TaskName, TaskRegistry } from "./define-tasks.js";
import type { EnqueuedTask } from "./enqueue/enqueued-task.js";
import { CommitListeners } from "./enqueue/committed-enqueues.js";
import { ENQUEUE_HOOK, enqueueHook } from "./enqueue/enqueue-hook.js";
import { enqueuePromise, settleBatch, type EnqueueCore } from "./enqueue/enqueue-promise.js";
import { prepareTask, type EnqueueOptions } from "./enqueue/prepare.js";
import { transactionGate } from "./enqueue/transaction-gate.js";
import { TransactionScope, TransactionScopes } from "./enqueue/transaction-scopes.js";
import { TaskClientUnusableError, TaskOptionsError, TaskQueueConfigError } from "./errors.js";
import { jsonLogger, type Logger } from "./logger.js";
import type { NamingOptions } from "./naming-options.js";
import type { PrepareReport } from "./store/store.js";
import { InProcessTransport } from "./wakeups/in-process-transport.js";
import { checkTransportOptions, openTransport } from "./wakeups/open-transport.js";
import type { BrokerState, WakeupTransport } from "./wakeups/transport.js";
import { WakeupSender } from "./wakeups/wakeup-sender.js";

/** Options of taskQueue(). */
export interface TaskQueueOptions<Tasks extends TaskRegistry, Model extends string = "Task"> extends NamingOptions {
  /** The registry from defineTasks(). */
  tasks: Tasks;
  /**
   * RabbitMQ URL for wake-ups, e.g. amqp://guest:guest@127.0.0.1:5672. Default: none, and then wake-ups go by
   * PostgreSQL NOTIFY on PostgreSQL, in-process on SQLite, and nowhere on MySQL (workers poll): see `wakeups`.
   */
  amqpUrl?: string;
  /** Name of the Prisma model of the task table. Default "Task"; enqueue is added to `prisma.<model>` (`prisma.task`). */
  model?: Model;
  /** Largest payload accepted, in bytes of JSON. Default 262144 (256 KiB). Larger payloads throw TaskPayloadTooLargeError. */
  maxPayloadBytes?: number;
  /** Where warnings (a failed publish, a broker reconnect) go. Default: JSON lines on stderr, info and above. */
  logger?: Logger;
  /** Called when wake-ups could not be published after a commit. The rows stay unpublished and the cleaner re-publishes them. */
  onPublishError?: (ids: string[], error: Error) => void;
}

/** Controls of the extension, on `prisma.$taskQueue`. */
export interface TaskQueueHandle {
  /** Resolves when every wake-up handed over so far is confirmed by the broker (or has failed and was reported). */
  flush(): Promise<void>;
  /** Flushes, then closes the broker connection. Call it before your process exits. */
  close(): Promise<void>;
  /**
   * The broker as this client last saw it, e.g. `{ transport: "rabbitmq", state: "refused", url, error, fix, since }`:
   * "connected", "connecting", "unreachable" (retried with backoff), "refused" (wrong credentials or virtual host:
   * `fix` says what to change; retried every 30 s), or "none" without amqpUrl. A health check can report it. Reading it
   * starts the connection when nothing was published yet (the client connects lazily, at the first wake-up), so the
   * first read after start says "connecting". Enqueue succeeds in every state; only wake-ups wait.
   */
  readonly broker: BrokerState;
}

/** The methods added to the task model. */
export type TaskModelMethods<Tasks extends TaskRegistry> = {
  /**
   * Writes a task row through this client (inside a transaction: in that transaction) and publishes its wake-up
   * after the commit. Validates before writing: throws TaskPayloadError, UnknownTaskError, TaskOptionsError or
   * TaskPayloadTooLargeError synchronously, and then nothing is written.
   */
  enqueue<Name extends TaskName<Tasks>>(
    name: Name,
    payload: PayloadInput<Tasks, Name>,
    options?: EnqueueOptions,
  ): Prisma.PrismaPromise<EnqueuedTask<Name>>;
  /** Like enqueue for many tasks, in one statement. All are validated first; one bad item writes nothing. */
  enqueueMany<Name extends TaskName<Tasks>>(items: ReadonlyArray<EnqueueItem<Tasks, Name>>): Prisma.PrismaPromise<EnqueuedTask<Name>[]>;
};

/** One item of enqueueMany (of one of the names `Names`, by default any registered name). */
export type EnqueueItem<Tasks extends TaskRegistry, Names extends TaskName<Tasks> = TaskName<Tasks>> = {
  [Name in Names]: { name: Name; payload: PayloadInput<Tasks, Name>; options?: EnqueueOptions };
}[Names];

/** The type of the extension taskQueue() returns, for `$extends`. */
export type TaskQueueExtension<Tasks extends TaskRegistry, Model extends string> = ReturnType<
  typeof Prisma.defineExtension<
    {},
    { [Key in Uncapitalize<Model>]: TaskModelMethods<Tasks> },
    {},
    { $taskQueue: TaskQueueHandle }
  >
>;

const DEFAULT_MAX_PAYLOAD_BYTES = 256 * 1024;

/** The Prisma client extension: `prisma.$extends(taskQueue({ tasks, amqpUrl }))`. */
export function taskQueue<const Tasks extends TaskRegistry, const Model extends string = "Task">(
  options: TaskQueueOptions<Tasks, Model>,
): TaskQueueExtension<Tasks, Model> {
  const { tasks } = options;
  if (typeof tasks !== "object" || tasks === null) {
    throw new TaskQueueConfigError("tasks", "pass the registry returned by defineTasks({...}).");
  }
  const table = taskTable(options.table, options.schema);
  const modelName = options.model ?? "Task";
  if (typeof modelName !== "string" || !/^[A-Za-z][A-Za-z0-9_]*$/.test(modelName)) {
    throw new TaskQueueConfigError("model", `${JSON.stringify(modelName)} is not a Prisma model name.`);
  }
  const modelKey = modelName[0]!.toLowerCase() + modelName.slice(1);
  const maxPayloadBytes = options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES;
  if (!Number.isSafeInteger(maxPayloadBytes) || maxPayloadBytes <= 0) {
    throw new TaskQueueConfigError("maxPayloadBytes", `must be a positive integer, got ${String(maxPayloadBytes)}.`);
  }
  const logger = options.logger ?? jsonLogger();
  checkTransportOptions(options);

  return Prisma.defineExtension((client: any) => {
    checkModel(client, modelName, table.name);
    const baseTransaction = client.$transaction as (this: unknown, ...args: unknown[]) => Promise<unknown>;
    const store = prismaStore(client, table);
    // One connection (SQLite): transactions one at a time, a failed one ended before the next; see TransactionGate.
    const gate = transactionGate(client, store);
    const endFailed = () => store.endFailedTransaction();
    const transport = openTransport({ ...options, logger, store, inProcess: store.wakeupIdentity });
    const report = store.prepare();
    const ready = readyClient(report, transport, logger);
    const listeners = new CommitListeners(logger);
    // Due tasks are inserted marked published; a failed publish clears the mark for the cleaner.
    const sender = new WakeupSender({
      transport,
      logger,
      markFailed: (ids) => store.markUnpublished(ids),
      onFailed: options.onPublishError,
    });
    let warnedUntracked = false;
    let closed = false;
    const core: EnqueueCore = {
      store,
      ready,
      get publishes() {
        return transport.publishes;
      },
      notifyChannel: transport.enqueueChannel,
      scopes: new TransactionScopes(),
      ownTransaction: gate && {
        get held() {
          return gate.held;
        },
        run: (request) => gate.run(async () => ((await baseTransaction.call(client, [request])) as unknown[])[0], endFailed),
      },
      commit(wakeups, enqueued) {
        // NOTIFY wake-ups left with the COMMIT itself (the insert sent them); others are handed to the sender now.
        if (wakeups.length > 0 && transport.enqueueChannel === undefined) sender.send(wakeups);
        listeners.committed(enqueued);
      },
      untracked() {
        if (warnedUntracked || transport.enqueueChannel !== undefined) return;
        warnedUntracked = true;
        logger.warn("enqueue ran in a transaction not started through this client's $transaction; its wake-ups are left to the cleaner", {});
      },
    };

    const handle: TaskQueueHandle & { [ENQUEUE_HOOK]: unknown } = {
      async flush() {
        await sender.flush();
      },
      async close() {
        closed = true;
        await sender.close();
        await transport.close();
      },
      get broker() {
        if (!closed) transport.start();
        return transport.broker;
      },
      [ENQUEUE_HOOK]: enqueueHook({ tasks, table, store, ready, report, listen: (listener) => listeners.listen(listener) }),
    };

    function enqueue(this: unknown, name: string, payload: unknown, enqueueOptions?: EnqueueOptions) {
      const target = Prisma.getExtensionContext(this) as unknown as { $parent: object };
      const row = prepareTask(tasks, name, payload, enqueueOptions, maxPayloadBytes);
      return enqueuePromise(core, target.$parent, [row], true);
    }

    function enqueueMany(this: unknown, items: ReadonlyArray<{ name: string; payload: unknown; options?: EnqueueOptions }>) {
      const target = Prisma.getExtensionContext(this) as unknown as { $parent: object };
      if (!Array.isArray(items)) {
        throw new TaskOptionsError("(enqueueMany)", "items", `expected an array of { name, payload, options }, got ${typeof items}.`);
      }
      const rows = items.map((item, index) => {
        if (typeof item !== "object" || item === null) {
          throw new TaskOptionsError("(enqueueMany)", `items[${index}]`, `expected { name, payload, options }, got ${JSON.stringify(item)}.`);
        }
        return prepareTask(tasks, item.name, item.payload, item.options, maxPayloadBytes);
      });
      return enqueuePromise(core, target.$parent, rows, false);
    }

    async function transaction(this: object, arg: unknown, transactionOptions?: unknown) {
      const self = this;
      const outer = core.scopes.placement(self);
      const settle = (committed: TransactionScope) => {
        if (outer.kind === "transaction") outer.scope.absorb(committed);
        else if (outer.kind === "autocommit") core.commit(committed.wakeups, committed.enqueued);
        else if (committed.wakeups.length > 0) core.untracked();
      };
      // A transaction nested in one of this client's (a savepoint) runs inside the outer one's turn at the gate.
      const atGate = <T>(attempt: () => Promise<T>) => (gate && outer.kind === "autocommit" ? gate.run(attempt, endFailed) : attempt());
      if (typeof arg === "function") {
        await ready;
        const scope = new TransactionScope();
        let callbackDone = false;
        const result = await atGate(async () => {
          try {
            return await baseTransaction.call(
              self,
              async (tx: object) => {
                const value = await core.scopes.within(tx, scope, () => (arg as (tx: object) => Promise<unknown>)(tx));
                callbackDone = true;
                return value;
              },
              transactionOptions,
            );
          } catch (error) {
            // Prisma 6 keeps the adapter's lock after a failed COMMIT: fail the client's next calls instead of hanging.
            if (gate && callbackDone && keepsLockAfterFailedCommit(client)) gate.refuse(new TaskClientUnusableError(prismaVersion(client), error));
            throw error;
          }
        });
        settle(scope);
        return result;
      }
      if (Array.isArray(arg)) {
        await ready;
        const results = (await atGate(() => baseTransaction.call(self, arg, transactionOptions))) as unknown[];
        settle(await settleBatch(core, client, arg, results));
        return results;
      }
      return baseTransaction.call(self, arg, transactionOptions);
    }

    return client.$extends({
      name: "prisma-task-queue",
      model: { [modelKey]: { enqueue, enqueueMany } },
      client: { $transaction: transaction, $taskQueue: handle },
    });
  }) as unknown as TaskQueueExtension<Tasks, Model>;
}

/**
 * Readies the app's client once (store.prepare()): the transport learns the database's identity for in-process
 * wake-ups, notes are logged, and a lasting problem rejects every enqueue with TaskQueueConfigError naming the fix.
 */
function readyClient(prepared: Promise<PrepareReport>, transport: WakeupTransport, logger: Logger): Promise<void> {
  const ready = prepared.then((report) => {
    if (report.wakeupIdentity !== undefined && transport instanceof InProcessTransport) transport.identity = report.wakeupIdentity;
    for (const note of report.notes ?? []) logger.warn(note, {});
    if (report.problem) {
      const { message, detail } = report.problem;
      throw new TaskQueueConfigError("prisma", `${message}; ${detail ?? "check the client's adapter"}.`);
    }
  });
  ready.catch(() => {}); // reported by every enqueue that awaits it
  return ready;
}

/** The version of the Prisma client, e.g. "7.10.0"; "unknown" when it does not say. */
function prismaVersion(client: object): string {
  const version = (client as { _clientVersion?: unknown })._clientVersion;
  return typeof version === "string" ? version : "unknown";
}

/** True for Prisma 6, whose engine sends no release to the adapter after a COMMIT that failed (7 does). */
function keepsLockAfterFailedCommit(client: object): boolean {
  return /^6\./.test(prismaVersion(client));
}

/** Fails early, naming the fix, when the client has no such model or maps it to another table. */
function checkModel(client: any, modelName: string, tableName: string): void {
  const models = client?._runtimeDataModel?.models as Record<string, { dbName: string | null }> | undefined;
  if (!models) return; // not inspectable in this Prisma version: the first enqueue will tell
  const model = models[modelName];
  if (!model) {
    throw new TaskQueueConfigError(
      "model",
      `this Prisma client has no model "${modelName}". Add the model from prisma-task-queue/prisma/task.prisma to your schema ` +
        `(npx task-runner init), or pass the name you gave it: taskQueue({ model: "..." }).`,
    );
  }
  const mapped = model.dbName ?? modelName;
  if (mapped !== tableName) {
    throw new TaskQueueConfigError(
      "table",
      `model "${modelName}" maps to table "${mapped}" but taskQueue() was given table "${tableName}". Pass taskQueue({ table: "${mapped}" }).`,
    );
  }
}
