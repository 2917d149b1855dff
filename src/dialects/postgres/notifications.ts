// PostgreSQL's LISTEN/NOTIFY as the store's wake-up notifications: re-sends run pg_notify through the store's Db (a
// pool, or the app's Prisma client), outside any app transaction; a worker listens on a session of its own.

import { TaskQueueConfigError } from "../../errors.js";
import type { ListenSessionOptions, NotificationHandlers, NotificationSession, WakeupNotifications } from "../../store/notifications.js";
import type { Db } from "../../store/db.js";
import { PgNotifySession } from "./notify-session.js";
import { notifyLaterWakeups, notifyWakeups } from "./sql/notify-wakeups.js";

/**
 * `own`: the store's own connection (undefined for a store bound to a Prisma client): where a session of its own may
 * be opened, and whether its URL goes through PgBouncer in transaction mode (then only a given URL can listen).
 */
export function pgNotifications(db: Db, own: { sessionUrl: string | undefined } | undefined): WakeupNotifications {
  return {
    async notify(channel: string, queue: string, ids: readonly string[]): Promise<void> {
      if (ids.length > 0) await notifyWakeups(db, channel, queue, ids);
    },
    async notifyLater(channel, queue, wakeups): Promise<void> {
      if (wakeups.length > 0) await notifyLaterWakeups(db, channel, queue, wakeups);
    },
    canListen: (url) => (url ?? own?.sessionUrl) !== undefined,
    listen(channel: string, handlers: NotificationHandlers, options: ListenSessionOptions): NotificationSession {
      const sessionUrl = options.url ?? own?.sessionUrl;
      if (sessionUrl === undefined) {
        throw new TaskQueueConfigError(
          "listenUrl",
          own
            ? "listening for NOTIFY wake-ups needs a session of its own, which PgBouncer in transaction mode (pgbouncer=true in the URL) does not keep: pass listenUrl (or directUrl), a direct URL of the same database."
            : "listening for NOTIFY wake-ups needs a database URL, and this store runs through a Prisma client: pass databaseUrl, or listenUrl.",
        );
      }
      return new PgNotifySession({ url: sessionUrl, channel, handlers, logger: options.logger, maxReconnectDelayMs: options.maxReconnectDelayMs });
    },
  };
}
