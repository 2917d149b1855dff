// Gathers everything the overview shows, with the independent queries in parallel.

import { leaderLockHolder } from "../sql/leader-lock.js";
import type { DashboardContext } from "./dashboard-context.js";
import { countGroups, type GroupCount } from "./sql/count-groups.js";
import { listTasks, type TaskListRow } from "./sql/list-tasks.js";
import { recentWorkers, type RecentWorker } from "./sql/recent-workers.js";
import { stuckTasks, type StuckGroup } from "./sql/stuck-tasks.js";
import { listTaskGroups } from "./sql/task-groups.js";
import { finishedPerMinute, type Throughput } from "./sql/throughput.js";

export interface CleanerLeader {
  pid: number;
  applicationName: string;
  clientAddr: string | null;
  since: Date | null;
}

export interface OverviewData {
  /** The database's clock. */
  now: Date;
  counts: GroupCount[];
  stuck: StuckGroup[];
  throughput: Throughput;
  workers: RecentWorker[];
  leader: CleanerLeader | undefined;
  recentDead: TaskListRow[];
  browseIndex: boolean;
}

export async function overviewData(context: DashboardContext): Promise<OverviewData> {
  const { db, settings } = context;
  const { table } = settings;
  const browseIndex = await context.browseIndex();
  const groups = browseIndex ? await listTaskGroups(db, table) : undefined;
  const [clock, counts, stuck, throughput, workers, leader, recentDead] = await Promise.all([
    db.query<{ now: Date }>("SELECT now() AS now", []),
    countGroups(db, table, { groups, exactLimit: settings.exactCountLimit }),
    stuckTasks(db, table, settings.unpublishedGraceSeconds),
    finishedPerMinute(db, table),
    recentWorkers(db, table, settings.workerWindowSeconds),
    leaderLockHolder(db, context.lockKey),
    listTasks(db, table, { status: "dead" }, { limit: 6 }, groups),
  ]);
  const now = clock[0]?.now;
  return {
    now: now instanceof Date ? now : new Date(now ?? Date.now()),
    counts,
    stuck,
    throughput,
    workers,
    leader,
    recentDead: recentDead.rows,
    browseIndex,
  };
}
