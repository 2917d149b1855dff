// The soak's own wake-ups, sent outside the extension (early, duplicate and phantom wake-ups): on the transport the
// soak's processes use. RabbitMQ: straight to the broker, not through the proxies the faults break. NOTIFY: a
// notification on the database. Local (SQLite without a broker): written to every worker's socket on this host.

import type { Store } from "../../src/index.js";
import { InProcessTransport } from "../../src/wakeups/in-process-transport.js";
import { notifyChannel } from "../../src/wakeups/notify/notify-channel.js";
import type { RawBroker } from "./soak-raw-broker.js";

/** How the soak's processes are woken: RabbitMQ (undefined), PostgreSQL NOTIFY, or SQLite's local sockets. */
export type SoakWakeups = "notify" | "local" | undefined;

/** Sends wake-ups for `ids` of the queue "default" at once; close() releases what it opened. */
export interface RawWakeups {
  publish(ids: readonly string[]): void;
  close(): Promise<void>;
}

export function rawWakeups(
  wakeups: SoakWakeups,
  context: { prefix: string; broker: Pick<RawBroker, "publish">; store: Pick<Store, "notifications" | "wakeupIdentity"> },
): RawWakeups {
  if (wakeups === "notify") {
    return {
      publish: (ids) => void context.store.notifications!.notify(notifyChannel(context.prefix), "default", ids).catch(() => {}),
      close: async () => {},
    };
  }
  if (wakeups === "local") {
    const transport = new InProcessTransport(context.store.wakeupIdentity ?? undefined);
    const publisher = transport.publisher();
    return {
      publish: (ids) => publisher.publish("default", ids),
      close: async () => {
        await publisher.close();
        await transport.close();
      },
    };
  }
  return {
    publish: (ids) => context.broker.publish([...ids]),
    close: async () => {},
  };
}
