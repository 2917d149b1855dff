// The wake-up transport seam: how a committed task's id reaches a worker. RabbitMQ and PostgreSQL NOTIFY carry it between
// processes; in-process delivery serves a worker in the app's own process; polling (workers poll the table) is the
// fallback. A wake-up is only a hint: the row is the truth, so a lost wake-up delays a task (the cleaner re-sends it) and
// a duplicate one never runs it twice.

import type { DeadTaskNotification } from "./dead-task-notification.js";

/**
 * A wake-up for a task that is due later (a delayed enqueue, a retry): the worker that gets it keeps a timer and claims
 * the task by id when it is due. Only a hint: the task's row stays unpublished, so the cleaner wakes it when due if not.
 */
export interface DueLaterWakeup {
  id: string;
  /** When the task is due, on this process's monotonic clock (performance.now() milliseconds). */
  dueAt: number;
}

/** What a publisher tells about the wake-ups handed to it. */
export interface PublishHooks {
  /** Ids whose wake-up the transport confirmed. */
  onConfirmed?: (ids: string[]) => void;
  /** Ids whose wake-up was not confirmed (transport down, refused, closed). */
  onFailed?: (ids: string[], error: Error) => void;
  /** How long the first publish waits for the first connection, in ms. */
  connectTimeoutMs?: number;
}

/** Sends wake-ups, coalescing the ids handed over in one event-loop turn per queue. Never throws at its callers. */
export interface WakeupPublisher {
  /** Queues wake-ups for `ids` of task queue `queue`; they leave with the next flush (this turn of the event loop). */
  publish(queue: string, ids: readonly string[]): void;
  /**
   * Queues wake-ups of tasks due later; each message tells its receiver how long until each task is due. Nothing is
   * reported to the hooks (the rows stay unpublished either way). Left out by transports that cannot carry them.
   */
  publishLater?(queue: string, wakeups: readonly DueLaterWakeup[]): void;
  /** Publishes a dead-task notification; resolves once the transport confirmed it, rejects when it could not. */
  notifyDead(notification: DeadTaskNotification): Promise<void>;
  /** Resolves when every wake-up handed over so far is confirmed or has failed. Never rejects. */
  flush(): Promise<void>;
  /** Flushes, then stops accepting wake-ups. The transport stays open. */
  close(): Promise<void>;
}

/** How a worker listens. */
export interface ListenOptions {
  queues: readonly string[];
  /** Wake-ups held unacknowledged per queue. */
  prefetch: number;
  /** Handles the ids of one wake-up of task queue `queue`; resolves true to acknowledge it, false to hand it back. */
  deliver(ids: string[], queue: string): Promise<boolean>;
  /** Takes wake-ups of tasks of task queue `queue` that are due later; the message is acknowledged once they are taken. */
  deliverLater?(wakeups: DueLaterWakeup[], queue: string): void;
  /**
   * Called each time wake-ups start flowing again after they could not (a NOTIFY listener reconnected): those sent
   * meanwhile are gone, so the worker polls once for them. Transports whose messages wait in a queue do not call it.
   */
  resumed?(): void;
}

/** A worker's subscription to wake-ups. While it is not consuming, the worker polls. */
export interface WakeupListener {
  /** True while wake-ups flow for every queue. */
  readonly consuming: boolean;
  /** Starts listening now and after every reconnect. */
  start(): void;
  /** Resolves true once consuming, false after `timeoutMs` without. */
  waitConsuming(timeoutMs: number): Promise<boolean>;
  /** Stops taking new wake-ups; those in hand can still be acknowledged or handed back. */
  cancel(): Promise<void>;
  /** Cancels and closes; wake-ups not acknowledged by then go back to the queue. */
  close(): Promise<void>;
  /** How many listeners the queue has and how many wake-ups wait in it; undefined when the transport cannot tell. */
  queueState(queue: string): Promise<{ consumers: number; ready: number } | undefined>;
}

/**
 * The broker as a transport last saw it: `prisma.$taskQueue.broker`, `task-runner status`. A snapshot, not live.
 * - "connected": wake-ups flow.
 * - "connecting": the first attempt is under way (or nothing was published yet, so none was made).
 * - "unreachable": no broker answered (refused connection, reset, timeout, unknown host); retried with backoff.
 * - "refused": the broker answered and said no (credentials, virtual host, TLS) or the URL cannot be used; retrying
 *   will not help until the URL or the broker changes, so it is retried slowly (every 30 s).
 * - "none": no broker is configured (NOTIFY, polling or in-process transport): nothing to connect to.
 * In every state but "connected" tasks still run: workers poll and the cleaner publishes due tasks, only later.
 */
export interface BrokerState {
  /** The transport: "rabbitmq", "notify", "polling" or "in-process". */
  transport: string;
  state: "connected" | "connecting" | "unreachable" | "refused" | "none";
  /** The broker's URL with the password shown as ***; absent without a broker. */
  url?: string;
  /** The last connection error, as the client library gave it; absent while connected. */
  error?: string;
  /** What to check or change, for a failure that retrying will not heal (refused credentials, missing vhost, unknown host). */
  fix?: string;
  /** When the transport entered this state (a retry that fails the same way does not move it). */
  since?: Date;
}

/** One transport, shared by everything of one process that sends or receives wake-ups. */
export interface WakeupTransport {
  /** "rabbitmq", "notify", "in-process" or "polling". */
  readonly name: string;
  /**
   * The NOTIFY channel that enqueue's insert statement itself notifies (PostgreSQL NOTIFY): the wake-ups then leave
   * with the enqueuing transaction's COMMIT, and the extension hands none to the sender. Undefined for the others.
   */
  readonly enqueueChannel?: string;
  /** False for polling: nothing is published, workers find tasks by polling and the cleaner has nothing to re-send. */
  readonly publishes: boolean;
  /**
   * True when every listener gets every wake-up and none waits anywhere for a busy one (NOTIFY): a worker with no free
   * claim slot lets the ids go (an idle worker has them too) and catches up by polling as its slots free.
   */
  readonly fansOut?: boolean;
  /** True when the transport carries dead-task notifications (RabbitMQ's dead-letter exchange). */
  readonly notifiesDead: boolean;
  /** False while the last connection attempt failed and a reconnect is scheduled. */
  readonly reachable: boolean;
  /** The broker's state now (a copy). */
  readonly broker: BrokerState;
  /**
   * How many listeners the task queue `queue` has and how many wake-ups wait in it; undefined when the transport cannot
   * tell (no broker, not connected, no such queue).
   */
  queueState(queue: string): Promise<{ consumers: number; ready: number } | undefined>;
  /** Starts connecting in the background (idempotent). */
  start(): void;
  /** Waits until the first connection attempt succeeded (true) or failed (false), at most `timeoutMs`. */
  settled(timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
  /** Rejects with TaskQueueConfigError when the transport answers and refuses (credentials, virtual host). */
  checkAccess(): Promise<void>;
  /** A publisher on this transport. */
  publisher(hooks?: PublishHooks): WakeupPublisher;
  /** A listener for a worker. */
  listen(options: ListenOptions): WakeupListener;
  /**
   * Of `queues`, those that have a listener and no waiting wake-up: there a due task's lost wake-up is worth
   * re-sending. Empty while unreachable.
   */
  idleQueues(queues: readonly string[]): Promise<string[]>;
  /** Closes the connection. Publishers and listeners must be closed first. */
  close(): Promise<void>;
}
