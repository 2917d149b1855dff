// Gathers everything the overview shows, with the independent queries in parallel.

import type { LeaderInfo } from "../store/leader-lock.js";
import type { GroupCount, RecentWorker, StuckGroup, TaskListRow, Throughput } from "../store/views.js";
import type { DashboardContext } from "./dashboard-context.js";
import type { QueueState } from "../store/queue-controls.js";
import { queueRows } from "../store/queue-rows.js";
import { scheduleRows, type ScheduleRow } from "./schedule-rows.js";
import { signalReport, type SignalReport } from "../scaler/signal-report.js";

export interface OverviewData {
  /** The database's clock. */
  now: Date;
  counts: GroupCount[];
  stuck: StuckGroup[];
  throughput: Throughput;
  workers: RecentWorker[];
  leader: LeaderInfo | undefined;
  recentDead: TaskListRow[];
  browseIndex: boolean;
  /** The browse index is missing on a table large enough for it to matter: the page says so. */
  browseIndexAdvised: boolean;
  /** The recurring schedules in the database, with their last and next slots. */
  schedules: ScheduleRow[];
  /** The queues' rows: paused or not, and the limits their workers declared. */
  queues: QueueState[];
  /** The scaling signal per queue, or why it is unavailable. */
  signal: SignalReport;
}

export async function overviewData(context: DashboardContext): Promise<OverviewData> {
  const { store, settings } = context;
  const { present: browseIndex, advised: browseIndexAdvised } = await context.browseIndexState();
  const groups = browseIndex ? await store.listTaskGroups() : undefined;
  const [now, counts, stuck, throughput, workers, leader, recentDead] = await Promise.all([
    store.now(),
    store.countGroups({ groups, exactLimit: settings.exactCountLimit }),
    store.stuckTasks(settings.unpublishedGraceSeconds),
    store.finishedPerMinute(),
    store.recentWorkers(settings.workerWindowSeconds),
    store.leaderHolder(context.lockKey),
    store.listTasks({ status: "dead" }, { limit: 6 }, groups),
  ]);
  const [schedules, queues, signal] = await Promise.all([scheduleRows(store, now), queueRows(store), signalReport(store, settings.scalingSignal)]);
  return {
    signal,
    now,
    schedules,
    queues,
    counts,
    stuck,
    throughput,
    workers,
    leader,
    recentDead: recentDead.rows,
    browseIndex,
    browseIndexAdvised,
  };
}
