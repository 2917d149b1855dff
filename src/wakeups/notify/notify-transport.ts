// PostgreSQL LISTEN/NOTIFY as the wake-up transport: no broker, sub-millisecond wake-ups. Enqueue's insert statement
// notifies inside the app's transaction (tasks due later too, with their run_at); re-sends (cleaner, CLI, dashboard, a
// worker's released tasks) notify outside.

import { errorMessage } from "../../error-text.js";
import type { Logger } from "../../logger.js";
import type { NotificationSession, WakeupNotifications } from "../../store/notifications.js";
import type { DeadTaskNotification } from "../dead-task-notification.js";
import type { BrokerState, DueLaterWakeup, ListenOptions, PublishHooks, WakeupListener, WakeupPublisher, WakeupTransport } from "../transport.js";
import { DeadTaskNotAnnouncedError } from "../wakeup-errors.js";

interface NotifyTransportOptions {
  notifications: WakeupNotifications;
  channel: string;
  logger: Logger;
  /** Where workers LISTEN; default: the store's database URL. */
  listenUrl?: string;
  maxReconnectDelayMs?: number;
}

export class NotifyTransport implements WakeupTransport {
  readonly name = "notify";
  readonly publishes = true;
  readonly notifiesDead = false;
  readonly fansOut = true;
  /** The database is the store's to watch: a notify that fails is reported per publish. */
  readonly reachable = true;

  constructor(private readonly options: NotifyTransportOptions) {}

  /** No broker: the wake-ups ride the database's own connections, whose trouble the store reports. */
  get broker(): BrokerState {
    return { transport: "notify", state: "none" };
  }

  /**
   * Undefined: PostgreSQL shows a session only its own LISTEN channels (pg_listening_channels()), so how many workers
   * listen cannot be told, and a notification nobody heard is not kept anywhere to count.
   */
  async queueState(): Promise<undefined> {
    return undefined;
  }

  /** Enqueue's insert sends the wake-ups itself, on this channel, inside the enqueuing transaction. */
  get enqueueChannel(): string {
    return this.options.channel;
  }

  start(): void {}

  async settled(): Promise<boolean> {
    return true;
  }

  async checkAccess(): Promise<void> {}

  publisher(hooks: PublishHooks = {}): WakeupPublisher {
    const { notifications, channel } = this.options;
    const pending = new Map<string, string[]>();
    const inFlight = new Set<Promise<void>>();
    let scheduled = false;
    let closed = false;
    /** Keeps `sent` (which never rejects) until it settles, for flush(). */
    const track = (sent: Promise<void>) => {
      inFlight.add(sent);
      void sent.finally(() => inFlight.delete(sent));
    };
    const send = (queue: string, ids: string[]) =>
      track(
        notifications.notify(channel, queue, ids).then(
          () => hooks.onConfirmed?.(ids),
          (error: unknown) => hooks.onFailed?.(ids, error instanceof Error ? error : new Error(String(error))),
        ),
      );
    const drain = () => {
      scheduled = false;
      for (const [queue, ids] of pending) send(queue, ids);
      pending.clear();
    };
    const flush = async () => {
      if (scheduled) drain();
      while (inFlight.size > 0) await Promise.all(inFlight);
    };
    return {
      publish: (queue, ids) => {
        if (closed || ids.length === 0) return;
        const waiting = pending.get(queue);
        if (waiting) waiting.push(...ids);
        else pending.set(queue, [...ids]);
        if (!scheduled) {
          scheduled = true;
          setImmediate(() => scheduled && drain());
        }
      },
      // A task due later (a slot fired ahead, a task released for later): every listener keeps a timer to its time. Nothing
      // is recorded of it; its row stays unpublished, for the cleaner should the notification be lost.
      publishLater: (queue: string, wakeups: readonly DueLaterWakeup[]) => {
        if (closed || wakeups.length === 0) return;
        const now = performance.now();
        const later = wakeups.map(({ id, dueAt }) => ({ id, dueInMs: dueAt - now }));
        track(notifications.notifyLater(channel, queue, later).catch(() => {}));
      },
      notifyDead: (notification: DeadTaskNotification) => Promise.reject(new DeadTaskNotAnnouncedError(notification.id, "NOTIFY wake-ups do not announce dead tasks")),
      flush,
      close: async () => {
        await flush();
        closed = true;
      },
    };
  }

  listen(options: ListenOptions): WakeupListener {
    const { notifications, channel, logger, listenUrl, maxReconnectDelayMs } = this.options;
    const queues = new Set(options.queues);
    let session: NotificationSession | undefined;
    let taking = false;
    const waiters = new Set<() => void>();
    const handlers = {
      wakeup: (queue: string, ids: string[]) => {
        if (!taking || !queues.has(queue)) return;
        // A wake-up is a hint: when its delivery fails the rows stay pending, for polling and the cleaner.
        options.deliver(ids, queue).catch((error: unknown) => {
          logger.warn("wake-up handling failed; polling and the cleaner pick the tasks up", { queue, tasks: ids.length, error: errorMessage(error) });
        });
      },
      later: (queue: string, wakeups: Array<{ id: string; dueInMs: number }>) => {
        if (!taking || !queues.has(queue) || !options.deliverLater) return;
        const now = performance.now();
        options.deliverLater(
          wakeups.map(({ id, dueInMs }) => ({ id, dueAt: now + dueInMs })),
          queue,
        );
      },
      listening: () => {
        for (const wake of waiters) wake();
        options.resumed?.();
      },
      lost: () => {},
    };
    const stop = async () => {
      taking = false;
      const open = session;
      session = undefined;
      await open?.close();
    };
    return {
      get consuming() {
        return taking && session?.listening === true;
      },
      start() {
        if (taking) return;
        taking = true;
        session = notifications.listen(channel, handlers, { logger, url: listenUrl, maxReconnectDelayMs });
      },
      async waitConsuming(timeoutMs: number) {
        if (this.consuming) return true;
        await new Promise<void>((resolve) => {
          const wake = () => {
            clearTimeout(timer);
            waiters.delete(wake);
            resolve();
          };
          const timer = setTimeout(wake, timeoutMs);
          waiters.add(wake);
        });
        return this.consuming;
      },
      cancel: stop,
      close: stop,
      queueState: async () => undefined,
    };
  }

  /**
   * Every queue asked about: a notification that reached no listener is gone, not waiting anywhere, so any stale
   * wake-up may be lost and is worth re-sending (one notification per 200 ids, every republishAfterMs at most).
   */
  async idleQueues(queues: readonly string[]): Promise<string[]> {
    return [...queues];
  }

  async close(): Promise<void> {}
}
