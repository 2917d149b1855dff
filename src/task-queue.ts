// taskQueue(): the Prisma client extension. Puts together the checked options, the wake-up transport, the enqueue
// methods of the task model and the $transaction that publishes wake-ups only after the surrounding commit.

import { Prisma } from "@prisma/client/extension";
import { prismaStore } from "./dialects/index.js";
import type { TaskRegistry } from "./define-tasks.js";
import type { EnqueueCore } from "./enqueue/enqueue-promise.js";
import { transactionGate } from "./enqueue/transaction-gate.js";
import { TransactionScopes } from "./enqueue/transaction-scopes.js";
import { enqueueMethods, type TaskModelMethods } from "./extension/enqueue-methods.js";
import { checkModel, resolveTaskQueueOptions, type TaskQueueOptions } from "./extension/options.js";
import { signalMethod, type SignalMethod } from "./extension/signal-method.js";
import type { PrismaClientLike } from "./extension/prisma-client.js";
import { ownTransaction, transactionOverride, type TransactionContext } from "./extension/transaction-override.js";
import { wireTransport, type TaskQueueHandle } from "./extension/transport-wiring.js";

export type { EnqueueItem, TaskModelMethods } from "./extension/enqueue-methods.js";
export type { SentSignal, SignalMethod } from "./extension/signal-method.js";
export type { TaskQueueOptions } from "./extension/options.js";
export type { TaskQueueHandle } from "./extension/transport-wiring.js";

/** The type of the extension taskQueue() returns, for `$extends`. */
export type TaskQueueExtension<Tasks extends TaskRegistry, Model extends string> = ReturnType<
  // Prisma's defineExtension defaults its result, query and client parameters to {}; the same {} keeps this type the one $extends infers.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  typeof Prisma.defineExtension<{}, { [Key in Uncapitalize<Model>]: TaskModelMethods<Tasks> & SignalMethod }, {}, { $taskQueue: TaskQueueHandle }>
>;

/** The Prisma client extension: `prisma.$extends(taskQueue({ tasks, amqpUrl }))`. */
export function taskQueue<const Tasks extends TaskRegistry, const Model extends string = "Task">(
  options: TaskQueueOptions<Tasks, Model>,
): TaskQueueExtension<Tasks, Model> {
  const resolved = resolveTaskQueueOptions(options);
  const extend = (client: PrismaClientLike): unknown => {
    checkModel(client, resolved.modelName, resolved.table.name);
    const store = prismaStore(client, resolved.table);
    const transaction: TransactionContext = {
      client,
      gate: transactionGate(client, store),
      endFailed: () => store.endFailedTransaction(),
    };
    // `extended` is the client this extension returns (below): a transactional task run after the response gets its
    // ctx.tx from it.
    const wiring = wireTransport(options, resolved, store, () => extended);
    const { transport } = wiring;
    const core: EnqueueCore = {
      store,
      ready: wiring.ready,
      get publishes() {
        return transport.publishes;
      },
      notifyChannel: transport.enqueueChannel,
      scopes: new TransactionScopes(),
      ownTransaction: ownTransaction(transaction),
      commit: (wakeups, enqueued) => wiring.commit(wakeups, enqueued),
      untracked: () => wiring.untracked(),
    };
    const extended: unknown = client.$extends({
      name: "prisma-task-queue",
      model: { [resolved.modelKey]: { ...enqueueMethods(core, resolved.tasks, resolved.maxPayloadBytes), ...signalMethod(core, resolved.maxPayloadBytes) } },
      client: { $transaction: transactionOverride(core, transaction), $taskQueue: wiring.handle },
    });
    return extended;
  };
  // Prisma hands the extension its own client type; the extension uses only the PrismaClientLike part of it.
  return Prisma.defineExtension(extend as unknown as Parameters<typeof Prisma.defineExtension>[0]) as unknown as TaskQueueExtension<Tasks, Model>;
}
