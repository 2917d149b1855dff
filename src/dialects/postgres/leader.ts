// The cleaners' leader lock on PostgreSQL, as the leader elector uses it: a session advisory lock held on a dedicated
// connection (never a pooled one). The session ending, for any reason, releases the lock.

import type pg from "pg";
import type { Db } from "../../store/db.js";
import { answerWithin, type LeaderCalls, type LeaderSession } from "../../store/leader-elector.js";
import type { ElectionTiming } from "../../store/leader-lock.js";
import { pgDriver } from "./driver.js";
import { releaseLeaderLock, tryLeaderLock } from "./sql/leader.js";

/** The calls of one contender for the advisory lock `key`, each on a session of its own to `url`. */
export function advisoryLock(url: string, key: number, timing: ElectionTiming): LeaderCalls {
  return {
    kind: "session",
    async open(lost) {
      const client = new (pgDriver().Client)({
        connectionString: url,
        application_name: "prisma-task-queue cleaner lock",
        keepAlive: true,
        connectionTimeoutMillis: timing.answerTimeoutMs,
      });
      client.on("error", lost);
      client.on("end", () => lost(new Error("the lock connection ended")));
      await client.connect();
      const db = sessionDb(client, timing.answerTimeoutMs);
      // PostgreSQL 14+: the server ends this session when the pings stop (a partition it cannot see). Older servers keep
      // it until TCP keepalive gives up; the lock then waits that long for a new leader.
      await db.query(`SET idle_session_timeout = ${Math.round(timing.serverIdleTimeoutMs)}`, []).catch(() => undefined);
      const session: LeaderSession = {
        take: () => tryLeaderLock(db, key),
        // The lock lives as long as the session: a session that answers still holds it.
        hold: async () => (await db.query("SELECT 1", []), true),
        release: async () => void (await releaseLeaderLock(db, key)),
        close: () => endClient(client, timing.answerTimeoutMs),
      };
      return session;
    },
  };
}

/** The session as a Db whose every statement must answer within `timeoutMs`. */
function sessionDb(client: pg.Client, timeoutMs: number): Db {
  const query = async <Row>(text: string, values: readonly unknown[]) =>
    (await answerWithin(client.query(text, values as unknown[]), timeoutMs, `the lock connection did not answer within ${timeoutMs} ms`)).rows as Row[];
  return { query, request: query };
}

/** Ends a client, and destroys its socket when the server does not answer the goodbye (a half-open connection). */
async function endClient(client: pg.Client, timeoutMs: number): Promise<void> {
  await answerWithin(client.end(), timeoutMs, "").catch(() => {});
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}
