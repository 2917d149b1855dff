// A worker whose NOTIFY listener has nowhere to open its session: behind PgBouncer in transaction mode
// (`pgbouncer=true` in the database URL) with neither listenUrl nor directUrl. It polls instead, and says so once.

import { TaskQueueConfigError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { WakeupsChoice } from "../naming-options.js";
import type { Store } from "../store/store.js";
import { chosenWakeups } from "../wakeups/open-transport.js";

/** The worker's wake-ups: its choice, or "polling" in place of NOTIFY when the store cannot LISTEN (logged). */
export function listenableWakeups(
  options: { wakeups: WakeupsChoice | undefined; amqpUrl: string | undefined; listenUrl: string | undefined; pollIntervalMs: number },
  store: Pick<Store, "displayName" | "notifications">,
  logger: Logger,
): WakeupsChoice | undefined {
  const listenUrl = options.listenUrl === "" ? undefined : options.listenUrl;
  if (chosenWakeups({ ...options, store }) !== "notify" || !store.notifications || store.notifications.canListen(listenUrl)) return options.wakeups;
  const why = "NOTIFY wake-ups need a LISTEN session of their own, which PgBouncer in transaction mode (pgbouncer=true in the database URL) does not keep";
  if (options.wakeups === "notify") throw new TaskQueueConfigError("listenUrl", `${why}: set listenUrl (or directUrl) to a direct URL of the same database.`);
  logger.warn(`${why}; this worker polls for due tasks instead. Set listenUrl (or directUrl) to a direct URL of the same database to be woken at commit`, {
    pollIntervalMs: options.pollIntervalMs,
  });
  return "polling";
}
