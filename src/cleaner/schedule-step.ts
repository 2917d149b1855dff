// Sweep step 0: fire the recurring tasks. Each slot due within scheduleAheadMs becomes a task delayed to the slot's time,
// in one transaction with the slot's own row, whose unique key refuses a second firing; the schedule's last slot then
// moves past it. The slots of all schedules fire oldest first, so a sweep out of time leaves no schedule behind.

import type { TaskRegistry } from "../define-tasks.js";
import { DEFAULT_MAX_PAYLOAD_BYTES } from "../extension/options.js";
import { prepareTask } from "../enqueue/prepare.js";
import { sentNow, wakeupsOf } from "../enqueue/enqueued-task.js";
import { planSlots } from "../schedules/missed-slots.js";
import type { ResolvedSchedule } from "../schedules/task-schedule.js";
import type { SweepContext } from "./sweep.js";

/** A slot is on time while it is at most this old (or five cleaner intervals, when longer); older, it was missed. */
export const ON_TIME_MS = 60_000;

/** The schedules a cleaner fires, written to the database once per leadership term. */
export class ScheduleFiring {
  private synced = false;
  /** The wake-ups this leader sends itself when a slot it fired ahead comes due, by task id. */
  private readonly dueTimers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly schedules: readonly ResolvedSchedule[],
    private readonly tasks: TaskRegistry,
  ) {}

  /** Clears the timers of the slots fired ahead (the cleaner stops; their tasks are in the database). */
  stop(): void {
    for (const timer of this.dueTimers.values()) clearTimeout(timer);
    this.dueTimers.clear();
  }

  /** Makes the next fire() write the declared schedules again: a new term, in which the code may have changed. */
  resync(): void {
    this.synced = false;
  }

  /** Fires every due slot; resolves how many tasks it enqueued. */
  async fire(ctx: SweepContext): Promise<number> {
    if (this.schedules.length === 0) return 0;
    const { store, logger } = ctx;
    const startedAt = performance.now();
    if (!this.synced) {
      await store.syncSchedules(this.schedules.map(({ id, taskName, cron, timeZone }) => ({ schedule: id, taskName, cron, timeZone })));
      this.synced = true;
    }
    const states = new Map((await store.listSchedules()).map((state) => [state.schedule, state]));
    const now = await store.now();
    // Slots up to `horizon` fire now, the future ones as tasks delayed to their time; a slot is missed when it is older
    // than onTimeMs by the database's clock.
    const aheadMs = ctx.options.scheduleAheadMs;
    const horizon = new Date(now.getTime() + aheadMs);
    const onTimeMs = Math.max(ON_TIME_MS, 5 * ctx.options.intervalMs) + aheadMs;
    const plans = [];
    for (const schedule of this.schedules) {
      const state = states.get(schedule.id);
      if (!state) {
        this.synced = false; // its row went away (deleted by hand): write it again at the next sweep
        continue;
      }
      plans.push({ schedule, plan: planSlots(schedule.slots, state.lastSlot, horizon, schedule.missed, onTimeMs) });
    }
    // Oldest first across schedules: a sweep out of time stops between slots, and the next one starts with the oldest.
    const due = plans.flatMap(({ schedule, plan }) => plan.fire.map((slot) => ({ schedule, slot }))).sort((a, b) => a.slot.getTime() - b.slot.getTime());
    let fired = 0;
    for (const { schedule, slot } of due) {
      if (!ctx.more(startedAt)) return fired;
      if (await this.fireSlot(ctx, schedule, slot, now)) fired++;
    }
    for (const { schedule, plan } of plans) {
      if (!plan.advanceTo) continue;
      const passed = plan.advanceTo.getTime() > (plan.fire.at(-1)?.getTime() ?? 0);
      await store.advanceSchedule(schedule.id, plan.advanceTo);
      if (passed) logger.info("schedule skipped missed slots", { schedule: schedule.id, upTo: plan.advanceTo.toISOString(), missed: schedule.missed });
    }
    return fired;
  }

  /**
   * Deletes the slot rows fired longer ago than the retention window (none after their schedule's last slot, so no
   * slot can fire again). Nothing to do, and nothing read, when no schedule is declared.
   */
  async prune(ctx: SweepContext): Promise<number> {
    if (this.schedules.length === 0) return 0;
    const { store, options } = ctx;
    const startedAt = performance.now();
    const before = new Date((await store.now()).getTime() - options.retentionMs);
    let pruned = 0;
    for (;;) {
      const count = await store.pruneScheduleSlots(before, options.batchSize);
      pruned += count;
      if (count < options.batchSize || !ctx.more(startedAt)) break;
    }
    if (pruned > 0) ctx.logger.debug("pruned fired schedule slots past retention", { count: pruned });
    return pruned;
  }

  private wakeAt(ctx: SweepContext, target: { id: string; queue: string }, inMs: number): void {
    const timer = setTimeout(
      () => {
        this.dueTimers.delete(target.id);
        ctx.sender.send([target]);
      },
      Math.max(0, inMs),
    );
    this.dueTimers.set(target.id, timer);
  }

  /** Fires `slot`: its task now when the slot has come (by the database's clock `now`), else delayed to the slot's time. */
  private async fireSlot(ctx: SweepContext, schedule: ResolvedSchedule, slot: Date, now: Date): Promise<boolean> {
    const ahead = slot.getTime() > now.getTime();
    const task = prepareTask(this.tasks, schedule.taskName, schedule.payload, undefined, DEFAULT_MAX_PAYLOAD_BYTES);
    if (ahead) task.runAt = slot; // run_at is the slot itself, compared with the database's clock

    const sent = sentNow();
    const inserted = await ctx.store.transaction(async (tx) => {
      if (!(await tx.claimScheduleSlot(schedule.id, slot, task.id))) return undefined;
      const insert = tx.insertTasks([task], false);
      const rows = await insert.read(await insert.request);
      await tx.advanceSchedule(schedule.id, slot);
      return rows;
    });
    if (!inserted) return false;
    ctx.logger.info(ahead ? "schedule fired ahead" : "schedule fired", { schedule: schedule.id, slot: slot.toISOString(), taskId: task.id, taskName: task.name });
    await ctx.sender.sendAndCount(wakeupsOf(inserted, [task], sent));
    // The wake-up that says when lives in the one worker that received it: should that worker die before the slot,
    // this leader wakes the queue itself at the slot's time (a second wake-up costs a failed claim at most).
    if (ahead) this.wakeAt(ctx, { id: task.id, queue: task.queue }, slot.getTime() - now.getTime() - (performance.now() - sent.at));
    return true;
  }
}
