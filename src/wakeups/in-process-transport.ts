// Wake-ups with no broker, for a database every process reaches through one file (SQLite): when a worker runs in the
// app's own process, a committed task's id reaches it right after the commit. Listeners register under the database's
// identity (its file and table) in a registry on globalThis, so two copies of the package in one process still meet.
// A task enqueued with a delay reaches one such worker too, which claims it when due. Workers of other processes on the
// same host listen on Unix sockets in a folder named after that identity, and every due task's wake-up is written to
// each of them too (local/). Polling stays on as the backstop: a wake-up is only a hint.

import type { DeadTaskNotification } from "./dead-task-notification.js";
import type { BrokerState, DueLaterWakeup, ListenOptions, PublishHooks, WakeupListener, WakeupPublisher, WakeupTransport } from "./transport.js";
import { DeadTaskNotAnnouncedError } from "./wakeup-errors.js";
import { TaskQueueInternalError } from "../errors.js";
import { SOCKETS_AVAILABLE, socketDirectory } from "./local/socket-directory.js";
import { SocketFanout } from "./local/socket-fanout.js";
import { SocketServer } from "./local/socket-server.js";
import { onMachineClock, onProcessClock } from "./local/socket-line.js";

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
  private known: string | undefined;
  private fanout: SocketFanout | undefined;

  /** `identity`: the database the wake-ups belong to; undefined until known (the app's client learns it at its first query). */
  constructor(identity?: string) {
    this.identity = identity;
  }

  get identity(): string | undefined {
    return this.known;
  }

  set identity(identity: string | undefined) {
    if (identity === this.known) return;
    this.fanout?.close();
    this.known = identity;
    this.fanout = identity !== undefined && SOCKETS_AVAILABLE ? new SocketFanout(socketDirectory(identity)) : undefined;
  }

  /** True while a worker listens to this database, in this process or another: only then is a wake-up worth sending. */
  get publishes(): boolean {
    const queues = this.identity === undefined ? undefined : registry().get(this.identity);
    return (queues !== undefined && [...queues.values()].some((listeners) => listeners.length > 0)) || (this.fanout?.hasPeers ?? false);
  }

  /**
   * While workers of other processes listen, each gets every wake-up: a busy worker lets the ids go (another may be
   * idle) and polls as its slots free.
   */
  get fansOut(): boolean {
    return this.fanout?.hasPeers ?? false;
  }

  start(): void {}

  async settled(): Promise<boolean> {
    return false;
  }

  async checkAccess(): Promise<void> {}

  publisher(hooks: PublishHooks = {}): WakeupPublisher {
    const pending = new Set<Promise<void>>();
    return {
      publish: (queue, ids) => {
        if (ids.length === 0 || this.identity === undefined) return;
        const batch = [...ids];
        let settled = false;
        const confirm = () => {
          if (settled) return;
          settled = true;
          hooks.onConfirmed?.(batch);
        };
        const fail = (error: Error) => {
          if (settled) return;
          settled = true;
          hooks.onFailed?.(batch, error);
        };
        const listeners = listenersOf(this.identity, queue);
        const written = this.fanout?.send(queue, batch);
        if (written) {
          const write = written.then((ok) => {
            if (ok) confirm();
            else if (listeners.length === 0) fail(new Error("no worker socket of another process took the wake-up"));
          });
          pending.add(write);
          void write.then(() => pending.delete(write));
        }
        if (listeners.length === 0) return; // no worker here: those of other processes have it, or poll for it
        const deliver = listeners[this.turn++ % listeners.length]!;
        queueMicrotask(() => {
          deliver(batch, queue).then(confirm, (error: unknown) => {
            if (!written) fail(error instanceof Error ? error : new Error(String(error)));
          });
        });
      },
      publishLater: (queue: string, wakeups: readonly DueLaterWakeup[]) => {
        if (wakeups.length === 0 || this.identity === undefined) return;
        // Workers of other processes keep their own timers: the due time goes on the machine's clock.
        this.fanout?.sendLater(queue, onMachineClock(wakeups));
        const listeners = registry(LATER_REGISTRY).get(this.identity)?.get(queue) ?? [];
        if (listeners.length === 0) return; // no worker here: those of other processes have it, or the cleaner wakes the tasks when due
        const deliverLater = listeners[this.turn++ % listeners.length]!;
        const batch = [...wakeups];
        queueMicrotask(() => deliverLater(batch, queue));
      },
      notifyDead: (notification: DeadTaskNotification) => Promise.reject(new DeadTaskNotAnnouncedError(notification.id, "no broker is configured")),
      // Waits for the socket writes handed over so far (local writes: quick, or failed at once).
      flush: async () => {
        while (pending.size > 0) await Promise.all([...pending]);
      },
      close: async () => {
        while (pending.size > 0) await Promise.all([...pending]);
      },
    };
  }

  listen(options: ListenOptions): WakeupListener {
    const identity = this.identity;
    if (identity === undefined) throw new TaskQueueInternalError("an in-process listener was opened without the database's identity");
    const deliver: Deliver = (ids, queue) => options.deliver(ids, queue);
    // Wake-ups from other processes: for the queues this worker serves; the row decides, so nothing is acknowledged.
    const server = SOCKETS_AVAILABLE
      ? new SocketServer(
          socketDirectory(identity),
          (ids, queue) => {
            if (options.queues.includes(queue)) void options.deliver(ids, queue).catch(() => {});
          },
          (later, queue) => {
            if (options.queues.includes(queue)) options.deliverLater?.(onProcessClock(later), queue);
          },
        )
      : undefined;
    const deliverLater: DeliverLater | undefined = options.deliverLater && ((wakeups, queue) => options.deliverLater!(wakeups, queue));
    let listening = false;
    let serving: Promise<unknown> = Promise.resolve();
    const stop = async () => {
      if (!listening) return;
      listening = false;
      await serving;
      await server?.close();
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
        serving = server?.start() ?? serving;
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

  async close(): Promise<void> {
    this.fanout?.close();
    this.fanout = undefined;
  }
}
