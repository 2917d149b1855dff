// Wake-ups inside one Node.js process, with no broker: when a worker runs in the app's own process, a committed
// task's id reaches it right after the commit. Listeners register under the database's identity (its file and table)
// in a registry on globalThis, so two copies of the package in one process still meet. Tasks enqueued elsewhere
// (another process, the CLI, the cleaner's delayed tasks) are found by polling: an in-process listener never stops it.

import type { DeadTaskNotification } from "./dead-task-notification.js";
import type { BrokerState, ListenOptions, PublishHooks, WakeupListener, WakeupPublisher, WakeupTransport } from "./transport.js";
import { DeadTaskNotAnnouncedError } from "./wakeup-errors.js";
import { TaskQueueInternalError } from "../errors.js";

type Deliver = ListenOptions["deliver"];

/** identity → task queue → listeners. */
type Registry = Map<string, Map<string, Deliver[]>>;

const REGISTRY = Symbol.for("prisma-task-queue.in-process-wakeups");

function registry(): Registry {
  const scope = globalThis as { [REGISTRY]?: Registry };
  return (scope[REGISTRY] ??= new Map<string, Map<string, Deliver[]>>());
}

function listenersOf(identity: string, queue: string): Deliver[] {
  return registry().get(identity)?.get(queue) ?? [];
}

export class InProcessTransport implements WakeupTransport {
  readonly name = "in-process";
  readonly notifiesDead = false;
  readonly reachable = true;

  get broker(): BrokerState {
    return { transport: "in-process", state: "none" };
  }

  async queueState(): Promise<undefined> {
    return undefined;
  }
  private turn = 0;

  /** `identity`: the database the wake-ups belong to; undefined until known (the app's client learns it at its first query). */
  constructor(public identity?: string) {}

  /** True while a worker of this process listens to this database: only then is a wake-up worth sending. */
  get publishes(): boolean {
    const queues = this.identity === undefined ? undefined : registry().get(this.identity);
    return queues !== undefined && [...queues.values()].some((listeners) => listeners.length > 0);
  }

  start(): void {}

  async settled(): Promise<boolean> {
    return false;
  }

  async checkAccess(): Promise<void> {}

  publisher(hooks: PublishHooks = {}): WakeupPublisher {
    return {
      publish: (queue, ids) => {
        if (ids.length === 0 || this.identity === undefined) return;
        const listeners = listenersOf(this.identity, queue);
        if (listeners.length === 0) return; // no worker here: one elsewhere polls for it
        const deliver = listeners[this.turn++ % listeners.length]!;
        const batch = [...ids];
        queueMicrotask(() => {
          deliver(batch, queue).then(
            () => hooks.onConfirmed?.(batch),
            (error: unknown) => hooks.onFailed?.(batch, error instanceof Error ? error : new Error(String(error))),
          );
        });
      },
      notifyDead: (notification: DeadTaskNotification) => Promise.reject(new DeadTaskNotAnnouncedError(notification.id, "no broker is configured")),
      flush: async () => {},
      close: async () => {},
    };
  }

  listen(options: ListenOptions): WakeupListener {
    const identity = this.identity;
    if (identity === undefined) throw new TaskQueueInternalError("an in-process listener was opened without the database's identity");
    const deliver: Deliver = (ids, queue) => options.deliver(ids, queue);
    let listening = false;
    const stop = async () => {
      if (!listening) return;
      listening = false;
      const queues = registry().get(identity);
      for (const queue of options.queues) {
        const listeners = queues?.get(queue);
        if (listeners) listeners.splice(listeners.indexOf(deliver), 1);
      }
    };
    return {
      // Polling stays on: this listener hears only what this process enqueues.
      consuming: false,
      start() {
        if (listening) return;
        listening = true;
        const queues = registry().get(identity) ?? new Map<string, Deliver[]>();
        registry().set(identity, queues);
        for (const queue of options.queues) queues.set(queue, [...(queues.get(queue) ?? []), deliver]);
      },
      waitConsuming: async () => false,
      cancel: stop,
      close: stop,
      queueState: async () => undefined,
    };
  }

  async idleQueues(): Promise<string[]> {
    return [];
  }

  async close(): Promise<void> {}
}
