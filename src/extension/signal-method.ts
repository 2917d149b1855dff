// signal() as the extension adds it to the task model: sends an event to a task in the transaction of the client it is
// called on (its own transaction when called outside one), so the event exists if and only if that transaction
// commits; a workflow waiting for it is woken after the commit, as an enqueued task is.

import { Prisma } from "@prisma/client/extension";
import type { EnqueueCore } from "../enqueue/enqueue-promise.js";
import type { EnqueueBatch } from "../enqueue/committed-enqueues.js";
import { MAX_STEP_NAME_LENGTH, RESERVED_EVENT_PREFIX } from "../store/steps.js";
import { isTaskId } from "../store/task-id.js";
import { TaskEventError } from "../workflow/workflow-errors.js";

/** What signal() did. */
export interface SentSignal {
  /** False when the task is missing or finished (succeeded, dead, cancelled): nothing was written. */
  accepted: boolean;
  /** True when the task waited for this event: it runs again once the transaction commits. */
  woken: boolean;
}

/** The signal method of the task model (a type, not an interface: Prisma's model methods need an index signature). */
export type SignalMethod = {
  /**
   * Sends event `event` with `payload` (JSON) to task `taskId`, in this client's transaction: kept until one of the
   * task's waits (`ctx.step.waitForEvent`) receives it, and never sent if the transaction rolls back. A task waiting for
   * it runs again at the commit. Throws TaskEventError, before anything is written, for a bad id, name or payload.
   */
  signal(taskId: string, event: string, payload?: unknown): Promise<SentSignal>;
};

/** No enqueue call: a signal's wake-up rides with the transaction's own. */
const NO_ENQUEUE: EnqueueBatch = { prepared: [], inserted: [] };

/** Builds the signal method of one extended client. */
export function signalMethod(
  core: EnqueueCore,
  maxPayloadBytes: number,
): { signal(this: unknown, taskId: string, event: string, payload?: unknown): Promise<SentSignal> } {
  return {
    async signal(taskId, event, payload) {
      const json = checkedEvent(taskId, event, payload, maxPayloadBytes);
      const client = (Prisma.getExtensionContext(this) as unknown as { $parent: object }).$parent;
      const send = async (on: object): Promise<SentSignal> => {
        await core.ready;
        const placement = core.scopes.placement(on);
        const sent = await core.store.through(on).sendEvent(taskId, event, json, core.notifyChannel);
        if (sent.woken) {
          if (placement.kind === "transaction") placement.scope.add(NO_ENQUEUE, [sent.woken]);
          else core.untracked();
        }
        return { accepted: sent.accepted, woken: sent.woken !== undefined };
      };
      // Outside a transaction: one of its own (through the extended $transaction, which wakes after the commit).
      if (core.scopes.placement(client).kind === "autocommit") {
        return (client as { $transaction(fn: (tx: object) => Promise<SentSignal>): Promise<SentSignal> }).$transaction(send);
      }
      return send(client);
    },
  };
}

function checkedEvent(taskId: unknown, event: unknown, payload: unknown, maxPayloadBytes: number): string {
  if (!isTaskId(taskId)) throw new TaskEventError(`the task id ${JSON.stringify(taskId)} is not a task's id (a UUID, as enqueue returns it).`);
  if (typeof event !== "string" || event.length === 0 || event.length > MAX_STEP_NAME_LENGTH) {
    throw new TaskEventError(`the event name is a string of 1 to ${MAX_STEP_NAME_LENGTH} characters, got ${JSON.stringify(event)}.`);
  }
  if (event.startsWith(RESERVED_EVENT_PREFIX))
    throw new TaskEventError(`event names starting with "${RESERVED_EVENT_PREFIX}" are the package's own, got ${JSON.stringify(event)}: pick another name.`);
  let json: string | undefined;
  try {
    json = JSON.stringify(payload ?? null);
  } catch (error) {
    throw new TaskEventError(`the payload of event "${event}" cannot be stored as JSON (${error instanceof Error ? error.message : String(error)}); send plain data.`);
  }
  json ??= "null";
  const bytes = Buffer.byteLength(json);
  if (bytes > maxPayloadBytes) {
    throw new TaskEventError(
      `the payload of event "${event}" is ${bytes} bytes of JSON, over the limit of ${maxPayloadBytes} (taskQueue's maxPayloadBytes); send a reference to the data instead.`,
    );
  }
  return json;
}
