// Publishes the wake-ups of tasks an operator command made runnable, so they run at once when the broker is up.
// Without a broker (or when it is down) the rows stay unpublished and the cleaner wakes them at its next sweep.

import { BrokerConnection } from "../broker/connection.js";
import { topology } from "../broker/topology.js";
import type { Db } from "../db/driver.js";
import type { TaskTable } from "../db/table.js";
import type { Logger } from "../logger.js";
import { PublishedMarker } from "../publishing/published-marker.js";
import { Publisher } from "../publishing/publisher.js";
import type { LoadedConfig } from "../runner/load-config.js";
import type { ChangedTask } from "../sql/operator-actions.js";

/** Publishes wake-ups for `tasks`; returns how many the broker confirmed (0 without amqpUrl). Never throws. */
export async function wakeTasks(config: LoadedConfig, db: Db, table: TaskTable, tasks: readonly ChangedTask[], logger: Logger): Promise<number> {
  if (!config.amqpUrl || tasks.length === 0) return 0;
  const connection = new BrokerConnection(config.amqpUrl, { logger, maxDelayMs: 1000 });
  const marker = new PublishedMarker(db, table, logger);
  let confirmed = 0;
  const publisher = new Publisher({
    connection,
    topology: topology(config.amqpPrefix, config.quorumQueues ?? false),
    logger,
    connectTimeoutMs: 5000,
    onConfirmed: (ids) => {
      confirmed += ids.length;
      marker.add(ids);
    },
  });
  try {
    for (const task of tasks) publisher.publish(task.queue, [task.id]);
    await publisher.flush();
    await marker.flush();
  } finally {
    await publisher.close();
    await connection.close();
  }
  return confirmed;
}
