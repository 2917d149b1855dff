// Database notifications as a wake-up channel (PostgreSQL LISTEN/NOTIFY): what a dialect that has them offers the
// NOTIFY transport. The dialect owns the SQL, the payload format and the listening session; the transport the rest.

import type { Logger } from "../logger.js";

/** What a listening session reports. */
export interface NotificationHandlers {
  /** The ids of one notification of task queue `queue`. */
  wakeup(queue: string, ids: string[]): void;
  /** The ids of one notification of tasks of task queue `queue` due later, each with how long until it is due. */
  later?(queue: string, wakeups: Array<{ id: string; dueInMs: number }>): void;
  /** The session listens (first time, or after a reconnect): notifications sent before may be lost. */
  listening(): void;
  /** The session was lost; it reconnects with backoff. */
  lost(error: Error): void;
}

/** A dedicated session that LISTENs on one channel and reconnects with backoff until closed. */
export interface NotificationSession {
  /** True while the session is connected and listening. */
  readonly listening: boolean;
  /** Stops listening and ends the session. */
  close(): Promise<void>;
}

/** Options of a listening session. */
export interface ListenSessionOptions {
  logger: Logger;
  /** The URL of the session; default: the store's own database URL. */
  url?: string;
  /** Longest pause between reconnect attempts, in ms. */
  maxReconnectDelayMs?: number;
}

/** A database's notifications. */
export interface WakeupNotifications {
  /** Sends wake-ups for `ids` of task queue `queue` on `channel` now, in as many notifications as they need. */
  notify(channel: string, queue: string, ids: readonly string[]): Promise<void>;
  /** Sends wake-ups of tasks of `queue` due later, each `dueInMs` from now, that say when (listeners keep a timer). */
  notifyLater(channel: string, queue: string, wakeups: ReadonlyArray<{ id: string; dueInMs: number }>): Promise<void>;
  /** True when listen() can open its session: on `url` when given, else on the store's own URL (not a pooled one). */
  canListen(url: string | undefined): boolean;
  /** Opens a session listening on `channel`. Throws TaskQueueConfigError when the store has no URL to open it on. */
  listen(channel: string, handlers: NotificationHandlers, options: ListenSessionOptions): NotificationSession;
}
