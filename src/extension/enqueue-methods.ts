// enqueue() and enqueueMany() as the extension adds them to the task model: their public types, and the methods that
// validate every item before anything is written and then insert through the client they are called on.

import { Prisma } from "@prisma/client/extension";
import type { PayloadInput, TaskName, TaskRegistry } from "../define-tasks.js";
import type { EnqueuedTask } from "../enqueue/enqueued-task.js";
import { enqueuePromise, type EnqueueCore } from "../enqueue/enqueue-promise.js";
import { prepareTask, type EnqueueOptions } from "../enqueue/prepare.js";
import { TaskOptionsError } from "../errors.js";

/** The methods added to the task model. */
export type TaskModelMethods<Tasks extends TaskRegistry> = {
  /**
   * Writes a task row through this client (inside a transaction: in that transaction) and publishes its wake-up
   * after the commit. Validates before writing: throws TaskPayloadError, UnknownTaskError, TaskOptionsError or
   * TaskPayloadTooLargeError synchronously, and then nothing is written.
   */
  enqueue<Name extends TaskName<Tasks>>(name: Name, payload: PayloadInput<Tasks, Name>, options?: EnqueueOptions): Prisma.PrismaPromise<EnqueuedTask<Name>>;
  /** Like enqueue for many tasks, in one statement. All are validated first; one bad item writes nothing. */
  enqueueMany<Name extends TaskName<Tasks>>(items: ReadonlyArray<EnqueueItem<Tasks, Name>>): Prisma.PrismaPromise<EnqueuedTask<Name>[]>;
};

/** One item of enqueueMany (of one of the names `Names`, by default any registered name). */
export type EnqueueItem<Tasks extends TaskRegistry, Names extends TaskName<Tasks> = TaskName<Tasks>> = {
  [Name in Names]: { name: Name; payload: PayloadInput<Tasks, Name>; options?: EnqueueOptions };
}[Names];

/** An item of enqueueMany as it arrives at run time, before it is checked. */
interface UncheckedItem {
  name: string;
  payload: unknown;
  options?: EnqueueOptions;
}

/** The untyped methods behind TaskModelMethods; `this` is the model of the client (or transaction client) called. */
interface EnqueueMethods {
  enqueue(this: unknown, name: string, payload: unknown, options?: EnqueueOptions): ReturnType<typeof enqueuePromise>;
  enqueueMany(this: unknown, items: ReadonlyArray<UncheckedItem>): ReturnType<typeof enqueuePromise>;
}

/** Builds the model methods of one extended client. */
export function enqueueMethods(core: EnqueueCore, tasks: TaskRegistry, maxPayloadBytes: number): EnqueueMethods {
  return {
    enqueue(name, payload, enqueueOptions) {
      const row = prepareTask(tasks, name, payload, enqueueOptions, maxPayloadBytes);
      return enqueuePromise(core, calledClient(this), [row], true);
    },
    enqueueMany(items) {
      const client = calledClient(this);
      if (!Array.isArray(items)) {
        throw new TaskOptionsError("(enqueueMany)", "items", `expected an array of { name, payload, options }, got ${typeof items}.`);
      }
      const rows = items.map((item: unknown, index) => {
        if (typeof item !== "object" || item === null) {
          throw new TaskOptionsError("(enqueueMany)", `items[${index}]`, `expected { name, payload, options }, got ${JSON.stringify(item)}.`);
        }
        const { name, payload, options } = item as UncheckedItem;
        return prepareTask(tasks, name, payload, options, maxPayloadBytes);
      });
      return enqueuePromise(core, client, rows, false);
    },
  };
}

/** The client (or transaction client) whose model a method was called on. */
function calledClient(model: unknown): object {
  return (Prisma.getExtensionContext(model) as unknown as { $parent: object }).$parent;
}
