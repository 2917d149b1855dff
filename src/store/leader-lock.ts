// The cleaners' leader lock, as each dialect provides it (PostgreSQL: a session advisory lock): at most one holder
// at a time, and a holder that cannot prove it still holds the lock stops leading at once.

/** How often the leader proves it still holds the lock, and how long the others wait before they may take it. */
export interface ElectionTiming {
  /** How often the leader pings its lock (and a follower tries the lock: that is the cleaner's interval). */
  heartbeatMs: number;
  /** A ping unanswered this long means the lock is lost: the leader gives up at once. */
  answerTimeoutMs: number;
  /**
   * After this long without a ping the lock frees itself for a follower (PostgreSQL: the session's
   * idle_session_timeout). Longer than heartbeat + answer timeout, so the old leader has given up before anyone else
   * can lead.
   */
  serverIdleTimeoutMs: number;
}

/** One contender for the lock. */
export interface LeaderLock {
  /** True while this contender holds the lock and its last ping was answered. */
  readonly isLeader: boolean;
  /**
   * Takes the lock when it is free, or checks that this contender still holds it. Resolves whether it leads. Rejects
   * when the database cannot be reached; leadership is then already given up.
   */
  check(): Promise<boolean>;
  /** Gives the lock up (if held) and closes what the lock opened. */
  release(): Promise<void>;
}

/** Who holds the lock, as the database tells it (for `task-runner status` and the dashboard). */
export interface LeaderInfo {
  /** The holder's id: its database session (see pidOf), or its operating-system process where the lock has no session. */
  pid: number | null;
  /**
   * What `pid` is: "database-backend" (PostgreSQL's backend pid), "database-connection" (MySQL's connection id) or
   * "process" (the holder's operating-system process id, on the host that starts `holder`: SQLite's lease row).
   */
  pidOf: "database-backend" | "database-connection" | "process";
  /** The holder's name as the database knows it (PostgreSQL: application_name). */
  holder: string | null;
  /** The holder's address, null for a local socket. */
  clientAddr: string | null;
  /** Since when it holds the lock (PostgreSQL: since its session started). */
  since: Date | null;
}
