// Wake-ups inside one Node.js process, with no broker: when a worker runs in the app's own process, a committed
// task's id reaches it right after the commit. Listeners register under the database's identity (its file and table)
// in a registry on globalThis, so two copies of the package in one process still meet. A task enqueued with a delay
// reaches one such worker too, which claims it when due. Tasks enqueued elsewhere (another process, the CLI, the
// cleaner's wake-ups) are found by polling: an in-process listener never stops it.

import type { DeadTaskNotification } from "./dead-task-notification.js";
import type { BrokerState, DueLaterWakeup, ListenOptions, PublishHooks, WakeupListener, WakeupPublisher, WakeupTransport } from "./transport.js";
import { DeadTaskNotAnnouncedError } from "./wakeup-errors.js";
import { TaskQueueInternalError } from "../errors.js";

type Deliver = ListenOptions["deliver"];
type DeliverLater = NonNullable<ListenOptions["deliverLater"]>;

/** identity → task queue → listeners. */
type Registry<T> = Map<string, Map<string, T[]>>;

const REGISTRY = Symbol.for("prisma-task-queue.in-process-wakeups");
/** Listeners of wake-ups of tasks due later: a registry of its own, which a copy of the package without them ignores. */
const LATER_REGISTRY = Symbol.for("prisma-task-queue.in-process-later-wakeups");

function registry(): Registry<Deliver>;
function registry(key: typeof LATER_REGISTRY): Registry<DeliverLater>;
function registry(key: symbol = REGISTRY): Registry<unknown> {
  const scope = globalThis as Record<symbol, Registry<unknown> | undefined>;
  return (scope[key] ??= new Map<string, Map<string, unknown[]>>());
}

function listenersOf(identity: string, queue: string): Deliver[] {
  return registry().get(identity)?.get(queue) ?? [];
}

function register<T>(registered: Registry<T>, identity: string, queues: readonly string[], listener: T): void {
  const byQueue = registered.get(identity) ?? new Map<string, T[]>();
  registered.set(identity, byQueue);
  for (const queue of queues) byQueue.set(queue, [...(byQueue.get(queue) ?? []), listener]);
}

function unregister<T>(registered: Registry<T>, identity: string, queues: readonly string[], listener: T): void {
  const byQueue = registered.get(identity);
  for (const queue of queues) {
    const listeners = byQueue?.get(queue);
    const at = listeners?.indexOf(listener) ?? -1;
    if (at >= 0) listeners!.splice(at, 1);
  }
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
      publishLater: (queue: string, wakeups: readonly DueLaterWakeup[]) => {
        if (wakeups.length === 0 || this.identity === undefined) return;
        const listeners = registry(LATER_REGISTRY).get(this.identity)?.get(queue) ?? [];
        if (listeners.length === 0) return; // no worker here: the cleaner wakes the tasks when due
        const deliverLater = listeners[this.turn++ % listeners.length]!;
        const batch = [...wakeups];
        queueMicrotask(() => deliverLater(batch, queue));
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
    const deliverLater: DeliverLater | undefined = options.deliverLater && ((wakeups, queue) => options.deliverLater!(wakeups, queue));
    let listening = false;
    const stop = async () => {
      if (!listening) return;
      listening = false;
      unregister(registry(), identity, options.queues, deliver);
      if (deliverLater) unregister(registry(LATER_REGISTRY), identity, options.queues, deliverLater);
    };
    return {
      // Polling stays on: this listener hears only what this process enqueues.
      consuming: false,
      start() {
        if (listening) return;
        listening = true;
        register(registry(), identity, options.queues, deliver);
        if (deliverLater) register(registry(LATER_REGISTRY), identity, options.queues, deliverLater);
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
