// taskQueue(): the Prisma client extension. Adds enqueue/enqueueMany to the task model of the client and of every
// transaction client, and publishes wake-ups to RabbitMQ only after the surrounding transaction commits.

import { Prisma } from "@prisma/client/extension";
import { BrokerConnection } from "./broker/connection.js";
import { topology } from "./broker/topology.js";
import { prismaDb, type PrismaRawClient } from "./db/prisma-db.js";
import { taskTable } from "./db/table.js";
import type { PayloadInput, TaskName, TaskRegistry } from "./define-tasks.js";
import type { EnqueuedTask } from "./enqueue/enqueued-task.js";
import { enqueuePromise, settleBatch, type EnqueueCore } from "./enqueue/enqueue-promise.js";
import { prepareTask, type EnqueueOptions } from "./enqueue/prepare.js";
import { TransactionScope, TransactionScopes, type Wakeup } from "./enqueue/transaction-scopes.js";
import { TaskOptionsError, TaskQueueConfigError } from "./errors.js";
import { jsonLogger, type Logger } from "./logger.js";
import { PublishedMarker } from "./publishing/published-marker.js";
import { markUnpublished } from "./sql/mark-published.js";
import { Publisher } from "./publishing/publisher.js";
import type { NamingOptions } from "./naming-options.js";

/** Options of taskQueue(). */
export interface TaskQueueOptions<Tasks extends TaskRegistry, Model extends string = "Task"> extends NamingOptions {
  /** The registry from defineTasks(). */
  tasks: Tasks;
  /**
   * RabbitMQ URL for wake-ups, e.g. amqp://guest:guest@127.0.0.1:5672. Default: none, and then nothing is published:
   * workers find new tasks by polling, so tasks still run, only later (the worker's poll interval).
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
  enqueueMany(items: ReadonlyArray<EnqueueItem<Tasks>>): Prisma.PrismaPromise<EnqueuedTask<TaskName<Tasks>>[]>;
};

/** One item of enqueueMany. */
export type EnqueueItem<Tasks extends TaskRegistry> = {
  [Name in TaskName<Tasks>]: { name: Name; payload: PayloadInput<Tasks, Name>; options?: EnqueueOptions };
}[TaskName<Tasks>];

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
  const names = topology(options.amqpPrefix, options.quorumQueues);
  const logger = options.logger ?? jsonLogger();

  return Prisma.defineExtension((client: any) => {
    checkModel(client, modelName, table.name);
    const baseTransaction = client.$transaction as (this: unknown, ...args: unknown[]) => Promise<unknown>;
    // Due tasks are inserted as published (see insertTasksSql); a failed publish clears the mark for the cleaner.
    const unpublished = new PublishedMarker(prismaDb(client), table, logger, markUnpublished);
    const connection = options.amqpUrl ? new BrokerConnection(options.amqpUrl, { logger }) : undefined;
    const publisher = connection
      ? new Publisher({
          connection,
          topology: names,
          logger,
          onFailed: (ids, error) => {
            unpublished.add(ids);
            options.onPublishError?.(ids, error);
          },
        })
      : undefined;
    let warnedUntracked = false;
    const core: EnqueueCore = {
      table,
      publishes: publisher !== undefined,
      scopes: new TransactionScopes(),
      publish(wakeups: readonly Wakeup[]) {
        if (!publisher) return;
        for (const [queue, ids] of groupByQueue(wakeups)) publisher.publish(queue, ids);
      },
      untracked() {
        if (warnedUntracked) return;
        warnedUntracked = true;
        logger.warn("enqueue ran in a transaction not started through this client's $transaction; its wake-ups are left to the cleaner", {});
      },
    };

    const handle: TaskQueueHandle = {
      async flush() {
        await publisher?.flush();
        await unpublished.flush();
      },
      async close() {
        await handle.flush();
        await publisher?.close();
        await connection?.close();
      },
    };

    function enqueue(this: unknown, name: string, payload: unknown, enqueueOptions?: EnqueueOptions) {
      const target = Prisma.getExtensionContext(this) as unknown as { $parent: PrismaRawClient };
      const row = prepareTask(tasks, name, payload, enqueueOptions, maxPayloadBytes);
      return enqueuePromise(core, target.$parent, [row], true);
    }

    function enqueueMany(this: unknown, items: ReadonlyArray<{ name: string; payload: unknown; options?: EnqueueOptions }>) {
      const target = Prisma.getExtensionContext(this) as unknown as { $parent: PrismaRawClient };
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
      const settle = (wakeups: readonly Wakeup[]) => {
        if (outer.kind === "transaction") outer.scope.wakeups.push(...wakeups);
        else if (outer.kind === "autocommit") core.publish(wakeups);
        else if (wakeups.length > 0) core.untracked();
      };
      if (typeof arg === "function") {
        const scope = new TransactionScope();
        const result = await baseTransaction.call(
          self,
          (tx: object) => core.scopes.within(tx, scope, () => (arg as (tx: object) => Promise<unknown>)(tx)),
          transactionOptions,
        );
        settle(scope.wakeups);
        return result;
      }
      if (Array.isArray(arg)) {
        const results = (await baseTransaction.call(self, arg, transactionOptions)) as unknown[];
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

function groupByQueue(wakeups: readonly Wakeup[]): Map<string, string[]> {
  const byQueue = new Map<string, string[]>();
  for (const { id, queue } of wakeups) {
    const ids = byQueue.get(queue);
    if (ids) ids.push(id);
    else byQueue.set(queue, [id]);
  }
  return byQueue;
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
