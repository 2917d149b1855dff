// The read side of the store: what `task-runner status` and the dashboard show. Every time is the database's clock.

import type { TaskRecord } from "./task-record.js";
import type { TaskStatus } from "./task-status.js";

/** Tasks of one queue, name and status. */
export interface StatusCount {
  queue: string;
  name: string;
  status: string;
  count: number;
}

/** Due pending tasks of one queue, and how long the oldest has waited. */
export interface PendingAge {
  queue: string;
  due: number;
  /** Seconds since the oldest due pending task became due; 0 when none is due. */
  oldestDueSeconds: number;
}

/** A status count that may be estimated (the overview counts exactly up to a limit per group). */
export interface GroupCount extends StatusCount {
  /** True when `count` is an estimate (the group holds more than the exact limit). */
  estimated: boolean;
}

/** A (queue, name) pair present in the table. */
export interface TaskGroup {
  queue: string;
  name: string;
}

/** A status, or one of two views of what is stuck: running with an expired lease, pending and due. */
export type StatusFilter = TaskStatus | "expired" | "due";

/** The task list's filter. */
export interface TaskFilter {
  status?: StatusFilter;
  name?: string;
  queue?: string;
  key?: string;
  /** Lowest id to show: the uuidv7 bound of the earliest enqueue time. */
  fromId?: string;
  /** Id bound past the latest enqueue time to show (exclusive). */
  toId?: string;
}

/** One page of the task list, by keyset on the id (uuidv7, time-ordered). */
export interface PageRequest {
  /** Show tasks older than this id (the next page). */
  before?: string;
  /** Show tasks newer than this id (the previous page). */
  after?: string;
  /** Rows per page. */
  limit: number;
}

/** One list row: what the table shows, never the whole payload. */
export interface TaskListRow {
  id: string;
  name: string;
  queue: string;
  status: string;
  attempts: number;
  maxAttempts: number;
  runAt: Date;
  createdAt: Date;
  finishedAt: Date | null;
  leaseOwner: string | null;
  leaseExpiresAt: Date | null;
  key: string | null;
  /** The first line of the last error, at most 400 characters. */
  errorLine: string | null;
  /** The payload's JSON text, at most 160 characters. */
  payloadPreview: string;
}

export interface TaskListPage {
  rows: TaskListRow[];
  /** More rows exist past the last one (older). */
  hasOlder: boolean;
  /** More rows exist before the first one (newer). */
  hasNewer: boolean;
}

/** A worker seen recently, as the lease owner of running or recently finished tasks. */
export interface RecentWorker {
  worker: string;
  /** Tasks it holds now. */
  running: number;
  /** Of those, how many have a lease that expired (the worker may be dead or stalled). */
  expired: number;
  /** Tasks it finished within the window. */
  finished: number;
  /** Latest sign of life: a heartbeat or a finish. */
  lastSeen: Date;
  /** Seconds since lastSeen. */
  idleSeconds: number;
}

/** What is stuck in one queue and task name, and since when. */
export interface StuckGroup {
  queue: string;
  name: string;
  /** Running tasks whose lease expired: their worker died or stalled; the cleaner should recover them. */
  expired: number;
  /** Seconds since the longest-expired lease ran out (0 when none). */
  oldestExpiredSeconds: number;
  /** Pending tasks that are due. */
  due: number;
  /** Seconds since the oldest due task became due (0 when none). */
  oldestDueSeconds: number;
  /** Pending tasks not yet due (delayed or waiting for a retry). */
  scheduled: number;
  /** Due tasks never published and due for longer than the grace: no wake-up reached a worker. */
  unpublished: number;
  /** Pending tasks that failed before and wait for a retry (attempts > 0). */
  retrying: number;
}

/** Finished tasks of one minute. */
export interface MinuteCounts {
  /** Start of the minute, Unix seconds. */
  minute: number;
  succeeded: number;
  dead: number;
  cancelled: number;
}

export interface Throughput {
  /** One entry per minute of the last hour, oldest first, zeros included (61 entries: the current minute is partial). */
  minutes: MinuteCounts[];
  /** Finished in the last hour, by queue, name and outcome. */
  byName: Array<{ queue: string; name: string; succeeded: number; dead: number }>;
}

/** One task with every column, and the database's clock when it was read. */
export interface TaskDetail extends TaskRecord {
  now: Date;
}
