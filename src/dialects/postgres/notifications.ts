// PostgreSQL's LISTEN/NOTIFY as the store's wake-up notifications: re-sends run pg_notify through the store's Db (a
// pool, or the app's Prisma client), outside any app transaction; a worker listens on a session of its own.

import { TaskQueueConfigError } from "../../errors.js";
import type { ListenSessionOptions, NotificationHandlers, NotificationSession, WakeupNotifications } from "../../store/notifications.js";
import type { Db } from "../../store/db.js";
import { PgNotifySession } from "./notify-session.js";
import { notifyWakeups } from "./sql/notify-wakeups.js";

/** `url`: the store's own database URL, undefined for a store bound to a Prisma client. */
export function pgNotifications(db: Db, url: string | undefined): WakeupNotifications {
  return {
    async notify(channel: string, queue: string, ids: readonly string[]): Promise<void> {
      if (ids.length > 0) await notifyWakeups(db, channel, queue, ids);
    },
    listen(channel: string, handlers: NotificationHandlers, options: ListenSessionOptions): NotificationSession {
      const sessionUrl = options.url ?? url;
      if (sessionUrl === undefined) {
        throw new TaskQueueConfigError(
          "listenUrl",
          "listening for NOTIFY wake-ups needs a database URL, and this store runs through a Prisma client: pass databaseUrl, or listenUrl.",
        );
      }
      return new PgNotifySession({ url: sessionUrl, channel, handlers, logger: options.logger, maxReconnectDelayMs: options.maxReconnectDelayMs });
    },
  };
}
