// The queue rows for what only shows them (status, the dashboard): none on a database without the queue table, so a
// database not migrated yet still shows the rest.

import type { QueueState } from "./queue-controls.js";
import type { Store } from "./store.js";

/** Every queue row, or none when the queue table does not exist. */
export async function queueRows(store: Store): Promise<QueueState[]> {
  try {
    return await store.listQueues();
  } catch (error) {
    if (store.classify(error).kind === "missing-table") return [];
    throw error;
  }
}
