// The NOTIFY channel's name, derived from amqpPrefix (the one naming option of wake-ups): "<prefix>.wakeups". Every
// task queue shares it; the queue travels in the payload. Checked once against PostgreSQL's 63-byte identifier limit.

import { TaskQueueConfigError } from "../../errors.js";

/** PostgreSQL truncates longer identifiers, so a longer channel would silently differ between LISTEN and pg_notify. */
const MAX_CHANNEL_BYTES = 63;
const SUFFIX = ".wakeups";

/** The channel of `prefix` (already checked by topology()); throws TaskQueueConfigError when it is too long. */
export function notifyChannel(prefix = "task_queue"): string {
  const channel = `${prefix}${SUFFIX}`;
  if (Buffer.byteLength(channel) > MAX_CHANNEL_BYTES) {
    throw new TaskQueueConfigError(
      "amqpPrefix",
      `${JSON.stringify(prefix)} is too long for PostgreSQL NOTIFY wake-ups: the channel "${channel}" has ` +
        `${Buffer.byteLength(channel)} bytes, over ${MAX_CHANNEL_BYTES}. Use a prefix of at most ${MAX_CHANNEL_BYTES - SUFFIX.length} characters.`,
    );
  }
  return channel;
}
