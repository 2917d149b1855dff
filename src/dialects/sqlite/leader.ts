// The cleaners' leader lock on SQLite, as the leader elector uses it: a lease row (SQLite has no sessions to hold a
// lock). The holder renews it every heartbeat; it expires serverIdleTimeoutMs after the last renewal, longer than
// heartbeat + answer timeout, so a leader that cannot renew has given up before any other cleaner can take the row.

import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Db } from "../../store/db.js";
import type { LeaderCalls, LeaderSession } from "../../store/leader-elector.js";
import type { ElectionTiming } from "../../store/leader-lock.js";
import { dropLease, takeLease } from "./sql/leader.js";
import type { SqliteTable } from "./table.js";

/** The lease row's name for the lock `key`. */
export function leaseName(key: number): string {
  return `cleaner:${key}`;
}

/** The calls of one contender for the lease of lock `key`, through the store's own connection or the app's client. */
export function leaseLock(db: Db, table: SqliteTable, key: number, timing: ElectionTiming): LeaderCalls {
  // One holder name for the contender's whole life, so it renews its own row after a failed renewal too.
  const holder = `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
  const name = leaseName(key);
  const renew = () => takeLease(db, table, name, holder, timing.serverIdleTimeoutMs);
  const session: LeaderSession = {
    take: renew,
    hold: renew,
    release: () => dropLease(db, table, name, holder),
    close: async () => {},
  };
  return { kind: "lease", open: async () => session };
}
