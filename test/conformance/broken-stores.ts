// Deliberately broken stores, to prove the conformance suites can fail: each breaks one guarantee the way a careless
// dialect would, on top of a real store, so the same wrapper breaks every dialect alike.

import type { LeaderLock } from "../../src/store/leader-lock.js";
import type { ScheduleState } from "../../src/store/schedules.js";
import type { Store } from "../../src/store/store.js";
import type { ClaimByIdResult, ClaimFilter, FailedTask, RecoveredTask, WakeupTarget } from "../../src/store/task-writes.js";

/** Each broken store: what it breaks, and the area of the store-level suite (test/conformance/store/) that must catch it. */
export const BROKEN_STORES = {
  "claim-without-lock": { area: "claim", breaks: "claimByIds trusts an earlier read: a task seen pending is handed out even when another claimer took it meanwhile" },
  "complete-without-lease-guard": { area: "outcomes", breaks: "complete records the success in the name of whoever holds the lease now" },
  "delete-without-lease-guard": { area: "outcomes", breaks: "deleteSucceeded deletes the tasks whoever holds their lease, and pending ones too" },
  "leader-grants-twice": { area: "leader", breaks: "every contender of the leader lock is told it leads" },
  "insert-ignores-keys": { area: "insert", breaks: "insertTasks drops the dedupe keys, so a key already taken gets a second task" },
  "insert-drops-trace-context": { area: "insert", breaks: "insertTasks writes no trace context, so a run cannot link to its enqueue" },
  "claim-ignores-priority": { area: "claim", breaks: "claimDue takes due tasks by run_at alone, whatever their priority" },
  "fail-never-dead": { area: "outcomes", breaks: "fail never dead-letters a task that used its last attempt: it retries forever" },
  "extend-any-owner": { area: "outcomes", breaks: "extendLeases extends the lease whoever holds it" },
  "complete-any-run": { area: "outcomes", breaks: "complete ignores the run's attempt, so a success retried late ends the same worker's next run" },
  "delete-any-run": { area: "outcomes", breaks: "deleteSucceeded ignores the runs' attempts, so a late deletion removes the same worker's next run" },
  "fail-any-run": { area: "outcomes", breaks: "fail ignores the run's attempt, so a failure retried late ends the same worker's next run" },
  "extend-any-run": { area: "outcomes", breaks: "extendLeases ignores the runs' attempts, so an earlier run's heartbeat extends the next run's lease" },
  "release-any-run": { area: "outcomes", breaks: "release ignores the runs' attempts, so an earlier run's release gives back the next run" },
  "hold-live-lease": { area: "recovery", breaks: "holdExpiredLease hands out a running task whose lease still holds" },
  "requeue-live-leases": { area: "recovery", breaks: "requeueExpired also puts back tasks whose lease still holds" },
  "unpublished-without-grace": { area: "wake-ups", breaks: "findUnpublished lists a task due at commit before its grace is over" },
  "prune-ignores-retention": { area: "prune", breaks: "prune deletes every finished task, whatever the retention" },
  "slot-claimed-twice": { area: "schedules", breaks: "claimScheduleSlot answers true for a slot whose row exists already" },
  "schedule-moves-back": { area: "schedules", breaks: "advanceSchedule sets the last slot to whatever it is given, earlier ones too" },
  "prune-slots-after-last": { area: "schedules", breaks: "pruneScheduleSlots also deletes slots after their schedule's last slot, so they can fire again" },
  "claim-ignores-limits": { area: "controls", breaks: "claimByIds and claimDue drop the filter's limits and take every due task" },
  "limit-rows-ignored": { area: "controls", breaks: "a claim that does not count a queue takes its tasks though the queue's row declares limits" },
  "pause-ignored": { area: "controls", breaks: "pauseQueue answers true and writes nothing, so a paused queue's tasks still run" },
  "expired-lease-frees-slot": { area: "controls", breaks: "a limited claim counts a running task whose lease expired as a free slot, before recovery" },
  "release-any-owner": { area: "controls", breaks: "release gives a task back whoever holds it, so a stale worker frees the new owner's slot" },
  "cancel-running": { area: "operator", breaks: "cancelTask cancels a running task too, under its worker's feet" },
  "list-expired-as-running": { area: "views", breaks: "listTasks shows every running task for the expired filter, live leases too" },
  "activity-from-rows": { area: "activity", breaks: "queueActivity counts arrivals and successes from the rows alone, so tasks deleted on success or pruned vanish" },
  "transaction-without-rollback": { area: "session", breaks: "transaction runs its function outside any transaction, so a failure rolls nothing back" },
} as const satisfies Record<string, { area: string; breaks: string }>;

export type BrokenKind = keyof typeof BROKEN_STORES;

export const BROKEN_KINDS = Object.keys(BROKEN_STORES) as BrokenKind[];

/** `store` with one guarantee broken. */
export function brokenStore(store: Store, kind: BrokenKind): Store {
  const overrides: Partial<Store> = {};
  if (kind === "claim-without-lock") {
    // Reads the rows first and trusts that read: a task seen pending is run even when another claimer took it meanwhile.
    overrides.claimByIds = async (ids, filter) => {
      const seen = new Map<string, Awaited<ReturnType<Store["findTask"]>>>();
      for (const id of ids) seen.set(id, await store.findTask(id));
      await new Promise((resolve) => setTimeout(resolve, 50));
      const results = await store.claimByIds(ids, filter);
      return results.map((result): ClaimByIdResult => {
        const before = seen.get(result.id);
        if (result.claimed || !before || before.status !== "pending") return result;
        return { id: result.id, claimed: { ...before, status: "running", attempts: before.attempts + 1, leaseOwner: filter.owner } };
      });
    };
  }
  if (kind === "complete-without-lease-guard") {
    // Completes in the name of whoever holds the lease now, so a worker that lost its lease still records success.
    overrides.complete = async (_owner, completions) => {
      const marked: string[] = [];
      for (const completion of completions) {
        const holder = (await store.findTask(completion.id))?.leaseOwner;
        if (holder) marked.push(...(await store.complete(holder, [completion])));
      }
      return marked;
    };
  }
  if (kind === "delete-without-lease-guard") {
    // Deletes what it is asked to, running under another worker's lease or not running at all.
    overrides.deleteSucceeded = async (_owner, ids) => {
      const deleted: string[] = [];
      for (const id of ids) {
        const task = await store.findTask(id);
        if (!task) continue;
        if (task.status !== "running") await store.claimByIds([id], { owner: "breaker", leaseMs: 60_000, names: [task.name], queues: [task.queue] });
        const holder = (await store.findTask(id))?.leaseOwner;
        if (holder) deleted.push(...(await store.deleteSucceeded(holder, [id])));
      }
      return deleted;
    };
  }
  if (kind === "leader-grants-twice") {
    overrides.leaderLock = (key, timing, logger) => {
      const real = store.leaderLock(key, timing, logger);
      const lock: LeaderLock = {
        get isLeader() {
          return true;
        },
        check: async () => (await real.check().catch(() => false), true),
        release: () => real.release(),
      };
      return lock;
    };
  }
  if (kind === "insert-ignores-keys") {
    overrides.insertTasks = (rows, publishes, notifyChannel) =>
      store.insertTasks(
        rows.map((row) => ({ ...row, key: null })),
        publishes,
        notifyChannel,
      );
  }
  if (kind === "insert-drops-trace-context") {
    overrides.insertTasks = (rows, publishes, notifyChannel) =>
      store.insertTasks(
        rows.map((row) => ({ ...row, traceContext: null })),
        publishes,
        notifyChannel,
      );
  }
  if (kind === "claim-ignores-priority") {
    overrides.claimDue = async (limit, filter) => {
      const due = [];
      for (const queue of filter.queues) {
        for (const name of filter.names) due.push(...(await store.listTasks({ status: "due", queue, name }, { limit: 1000 }, undefined)).rows);
      }
      due.sort((a, b) => a.runAt.getTime() - b.runAt.getTime());
      const results = await store.claimByIds(
        due.slice(0, limit).map((row) => row.id),
        filter,
      );
      return results.flatMap((result) => (result.claimed ? [result.claimed] : []));
    };
  }
  if (kind === "fail-never-dead") {
    // A task that used its last attempt goes back to pending instead of dead.
    overrides.fail = async (owner, failures) => {
      const failed = await store.fail(owner, failures);
      return Promise.all(
        failed.map(async (task): Promise<FailedTask> => {
          if (task.reason !== "max-attempts") return task;
          await store.retryTask(task.id);
          return { ...task, status: "pending", reason: null };
        }),
      );
    };
  }
  // The writes of a run without its attempt: any run of the owner matches.
  if (kind === "complete-any-run")
    overrides.complete = (owner, completions) =>
      store.complete(
        owner,
        completions.map(({ attempt: _, ...rest }) => rest),
      );
  if (kind === "delete-any-run") overrides.deleteSucceeded = (owner, ids) => store.deleteSucceeded(owner, ids);
  if (kind === "fail-any-run")
    overrides.fail = (owner, failures) =>
      store.fail(
        owner,
        failures.map(({ attempt: _, ...rest }) => rest),
      );
  if (kind === "extend-any-run") overrides.extendLeases = (owner, ids, leaseMs) => store.extendLeases(owner, ids, leaseMs);
  if (kind === "release-any-run") overrides.release = (owner, ids) => store.release(owner, ids);
  if (kind === "extend-any-owner") {
    overrides.extendLeases = async (owner, ids, leaseMs) => {
      const states = [];
      for (const id of ids) {
        const holder = (await store.findTask(id))?.leaseOwner ?? owner;
        states.push(...(await store.extendLeases(holder, [id], leaseMs)));
      }
      return states;
    };
  }
  if (kind === "hold-live-lease") {
    overrides.holdExpiredLease = async (id, holder, holdMs) => {
      const held = await store.holdExpiredLease(id, holder, holdMs);
      if (held) return held;
      const task = await store.findTask(id);
      if (task?.status !== "running") return undefined;
      const { now: _now, ...record } = task;
      return record;
    };
  }
  if (kind === "requeue-live-leases") {
    overrides.requeueExpired = async (ids, held) => {
      const recovered = await store.requeueExpired(ids, held);
      const done = new Set(recovered.map((task) => task.id));
      for (const id of ids) {
        const task = await store.findTask(id);
        if (done.has(id) || task?.status !== "running" || !task.leaseOwner) continue;
        await store.release(task.leaseOwner, [id]);
        recovered.push({ ...task, status: "pending" } satisfies RecoveredTask);
      }
      return recovered;
    };
  }
  if (kind === "unpublished-without-grace") {
    overrides.findUnpublished = (options) => store.findUnpublished({ ...options, graceMs: 0 });
  }
  if (kind === "prune-ignores-retention") {
    overrides.prune = (options) => store.prune({ ...options, retentionMs: 0 });
  }
  if (kind === "cancel-running") {
    overrides.cancelTask = async (id) => {
      const task = await store.findTask(id);
      if (task?.status === "running" && task.leaseOwner) await store.release(task.leaseOwner, [id]);
      return store.cancelTask(id);
    };
  }
  if (kind === "list-expired-as-running") {
    overrides.listTasks = (filter, page, groups) => store.listTasks(filter.status === "expired" ? { ...filter, status: "running" } : filter, page, groups);
  }
  if (kind === "slot-claimed-twice") {
    overrides.claimScheduleSlot = async (schedule, slot, taskId) => (await store.claimScheduleSlot(schedule, slot, taskId), true);
  }
  if (kind === "schedule-moves-back") {
    // The last slot each advance was given, shown over the stored one: what a store writing it unguarded would show.
    const given = new Map<string, Date>();
    const shown = (states: ScheduleState[]) => states.map((state) => (given.has(state.schedule) ? { ...state, lastSlot: given.get(state.schedule)! } : state));
    overrides.advanceSchedule = async (schedule, slot) => {
      await store.advanceSchedule(schedule, slot);
      given.set(schedule, slot);
    };
    overrides.listSchedules = async () => shown(await store.listSchedules());
    overrides.syncSchedules = async (declared) => shown(await store.syncSchedules(declared));
  }
  if (kind === "prune-slots-after-last") {
    // Prunes as asked, then also "deletes" the slots it claimed after their schedule's last slot: they count as
    // pruned, and the next claim of one is answered as the database would answer it once the row is gone.
    const claimed = new Map<string, { schedule: string; slot: Date }>();
    const gone = new Set<string>();
    const keyOf = (schedule: string, slot: Date) => `${schedule}\u0000${slot.getTime()}`;
    overrides.claimScheduleSlot = async (schedule, slot, taskId) => {
      const key = keyOf(schedule, slot);
      if (gone.delete(key)) return true;
      const won = await store.claimScheduleSlot(schedule, slot, taskId);
      if (won) claimed.set(key, { schedule, slot });
      return won;
    };
    overrides.pruneScheduleSlots = async (before, limit) => {
      let count = await store.pruneScheduleSlots(before, limit);
      const last = new Map((await store.listSchedules()).map((state) => [state.schedule, state.lastSlot.getTime()]));
      for (const [key, { schedule, slot }] of claimed) {
        const lastSlot = last.get(schedule);
        if (count >= limit || lastSlot === undefined || slot.getTime() <= lastSlot) continue;
        claimed.delete(key);
        gone.add(key);
        count += 1;
      }
      return count;
    };
  }
  if (kind === "claim-ignores-limits") {
    const unlimited = (filter: ClaimFilter): ClaimFilter => ({ owner: filter.owner, leaseMs: filter.leaseMs, names: filter.names, queues: filter.queues });
    overrides.claimByIds = (ids, filter) => store.claimByIds(ids, unlimited(filter));
    overrides.claimDue = (limit, filter) => store.claimDue(limit, unlimited(filter));
  }
  if (kind === "limit-rows-ignored") {
    overrides.claimDue = (limit, filter) => store.claimDue(limit, filter.limits ? filter : { ...filter, counted: true });
    overrides.claimByIds = (ids, filter) => store.claimByIds(ids, filter.limits ? filter : { ...filter, counted: true });
  }
  if (kind === "pause-ignored") {
    overrides.pauseQueue = () => Promise.resolve(true);
  }
  if (kind === "expired-lease-frees-slot") {
    // Raises each queue's concurrency by its running tasks whose lease expired: a stale claim no longer holds a slot.
    const stretched = async (filter: ClaimFilter): Promise<ClaimFilter> => {
      if (!filter.limits) return filter;
      const expired = await store.findExpiredLeases(1000);
      const limits = Object.fromEntries(
        Object.entries(filter.limits).map(([queue, limits]) => {
          const stale = expired.filter((task) => task.queue === queue).length;
          return [queue, limits.concurrency === undefined ? limits : { ...limits, concurrency: limits.concurrency + stale }];
        }),
      );
      return { ...filter, limits };
    };
    overrides.claimByIds = async (ids, filter) => store.claimByIds(ids, await stretched(filter));
    overrides.claimDue = async (limit, filter) => store.claimDue(limit, await stretched(filter));
  }
  if (kind === "release-any-owner") {
    overrides.release = async (_owner, ids) => {
      const released: WakeupTarget[] = [];
      for (const id of ids) {
        const holder = (await store.findTask(id))?.leaseOwner;
        if (holder) released.push(...(await store.release(holder, [id])));
      }
      return released;
    };
  }
  if (kind === "activity-from-rows") {
    // What the rows alone say: every task still in the table arrived, every succeeded one counts; deleted ones are gone.
    overrides.queueActivity = async (windows) => {
      const [activity, counts] = await Promise.all([store.queueActivity(windows), store.countTasks()]);
      return activity.map((row) => {
        const ofQueue = counts.filter((count) => count.queue === row.queue);
        const arrived = ofQueue.reduce((sum, count) => sum + count.count, 0);
        const succeeded = ofQueue.filter((count) => count.status === "succeeded").reduce((sum, count) => sum + count.count, 0);
        return { ...row, arrived, succeeded };
      });
    };
  }
  if (kind === "transaction-without-rollback") {
    overrides.transaction = (fn) => fn(brokenStore(store, kind));
  }
  return new Proxy(store, {
    get(target, property, receiver) {
      if (typeof property === "string" && property in overrides) return overrides[property as keyof Store];
      if (property === "through") return (prisma: unknown) => brokenStore(target.through(prisma), kind);
      if (property === "withAsyncCommit") {
        return () => {
          const relaxed = target.withAsyncCommit();
          return relaxed && brokenStore(relaxed, kind);
        };
      }
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
