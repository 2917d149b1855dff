// prisma-task-queue on PostgreSQL with no broker: the library's default there, PostgreSQL LISTEN/NOTIFY wake-ups
// (sent by the enqueuing insert, leaving with the COMMIT). The same install, producer and worker as `ours`.

import { ours } from "./ours.js";
import type { Peer } from "./peer.js";

export const oursNotify: Peer = {
  ...ours,
  name: "ours-notify",
  broker: false,
  settings: {
    ...ours.settings,
    concurrency: "10 (1 process) or 5 (2 processes): the worker's `concurrency`",
    pollIntervalMs: "1000 (default; polling only runs while the listener is down, and as catch-up at start and after a reconnect)",
    wakeups:
      "PostgreSQL NOTIFY (the default without amqpUrl): pg_notify in the insert statement, up to 200 ids per notification; workers LISTEN on a session of their own",
  },
  async cleanup() {},
};
