// The cleaners' leader lock refused for want of a session of its own: a store bound to a Prisma client, or a
// database URL that goes through PgBouncer in transaction mode without a direct URL.

import { TaskQueueConfigError } from "./errors.js";

/** A cleaner given a store bound to a Prisma client: its leader lock needs a connection of its own. */
export class LeaderLockStoreError extends TaskQueueConfigError {
  constructor() {
    super(
      "store",
      `the cleaner's leader lock needs a store with a pool of its own, and this one is bound to a Prisma client. ` +
        `Pass openStore(databaseUrl) as the cleaner's store, or leave store out and give databaseUrl.`,
    );
  }
}

/** A cleaner whose database URL goes through PgBouncer in transaction mode, with no direct URL for its leader lock. */
export class PooledLeaderLockError extends TaskQueueConfigError {
  constructor() {
    super(
      "directUrl",
      `the cleaners' leader lock is a session advisory lock, and the database URL goes through PgBouncer in transaction ` +
        `mode (pgbouncer=true), where a session lasts one transaction. Set directUrl to a direct (or session-pooled) URL of ` +
        `the same database: the lock holds one connection there, the rest goes through PgBouncer.`,
    );
  }
}
