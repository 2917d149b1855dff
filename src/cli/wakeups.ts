// Sends the wake-ups of tasks an operator command made runnable (RabbitMQ or NOTIFY), so they run at once. With polling
// (or when the transport is down) the rows stay unpublished and the cleaner wakes them at its next sweep.

import type { Logger } from "../logger.js";
import type { CommandConfig } from "./command-context.js";
import type { Store } from "../store/store.js";
import type { WakeupTarget } from "../store/task-writes.js";
import { openTransport } from "../wakeups/open-transport.js";
import { WakeupSender } from "../wakeups/wakeup-sender.js";

/** Sends wake-ups for `tasks`; returns how many the transport confirmed (0 with polling). Never throws. */
export async function wakeTasks(config: CommandConfig, store: Store, tasks: readonly WakeupTarget[], logger: Logger): Promise<number> {
  if (tasks.length === 0) return 0;
  const transport = openTransport({ ...config, logger, store, maxReconnectDelayMs: 1000 });
  if (!transport.publishes) return 0;
  const sender = new WakeupSender({ transport, logger, connectTimeoutMs: 5000, markConfirmed: (ids) => store.markPublished(ids) });
  try {
    return await sender.sendAndCount(tasks);
  } finally {
    await sender.close();
    await transport.close();
  }
}
