// The cleaners' leader lock on MySQL and MariaDB, as the leader elector uses it: a named lock (GET_LOCK) held by a
// dedicated connection, never a pooled one. The session ending, for any reason, releases the lock.

import type { Connection } from "mariadb";
import type { Db } from "../../store/db.js";
import { answerWithin, type LeaderCalls, type LeaderSession } from "../../store/leader-elector.js";
import type { ElectionTiming } from "../../store/leader-lock.js";
import { poolConfig } from "./connection-options.js";
import { mariadbDriver } from "./driver.js";
import { holdsNamedLock, releaseNamedLock, tryNamedLock, type NamedLock } from "./sql/leader.js";

/** The calls of one contender for `lock`, each on a session of its own to `url`. */
export function namedLock(url: string, lock: NamedLock, timing: ElectionTiming): LeaderCalls {
  return {
    kind: "session",
    async open(lost) {
      const mariadb = mariadbDriver();
      // The server closes the session when the pings stop for serverIdleTimeoutMs (a partition it cannot see), which
      // frees the lock for a follower; wait_timeout counts whole seconds.
      const idleSeconds = Math.max(1, Math.ceil(timing.serverIdleTimeoutMs / 1000));
      // No socket timeout: every statement on this session has its own (answerTimeoutMs), and an idle follower's session
      // may wait longer than any fixed limit between two cleaner intervals.
      const options = { applicationName: "prisma-task-queue cleaner lock", connectTimeoutMs: timing.answerTimeoutMs, queryTimeoutMs: 0 };
      const connection = await mariadb.createConnection(poolConfig(url, options));
      connection.on("error", lost);
      connection.on("end", () => lost(new Error("the lock connection ended")));
      const db = sessionDb(connection, timing.answerTimeoutMs);
      const close = () => endConnection(connection, timing.answerTimeoutMs);
      try {
        // A statement of our own, not a driver init statement (see READ_COMMITTED in own-db.ts).
        await db.query(`SET SESSION wait_timeout = ${idleSeconds}`, []);
      } catch (error) {
        await close();
        throw error;
      }
      const session: LeaderSession = {
        take: () => tryNamedLock(db, lock),
        // The leader's ping proves the session and the lock both still stand.
        hold: () => holdsNamedLock(db, lock),
        release: async () => void (await releaseNamedLock(db, lock)),
        close,
      };
      return session;
    },
  };
}

/** The session as a Db whose every statement must answer within `timeoutMs`. */
function sessionDb(connection: Connection, timeoutMs: number): Db {
  const query = async <Row>(sql: string, values: readonly unknown[]) =>
    answerWithin(connection.query<Row[]>(sql, values as unknown[]), timeoutMs, `the lock connection did not answer within ${timeoutMs} ms`);
  return { query, request: query };
}

/** Ends the session, and destroys its socket when the server does not answer the goodbye (a half-open connection). */
async function endConnection(connection: Connection, timeoutMs: number): Promise<void> {
  await answerWithin(connection.end(), timeoutMs, "").catch(() => {});
  connection.destroy();
}
