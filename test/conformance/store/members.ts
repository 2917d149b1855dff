// Every member of the Store interface, listed in an object the compiler keeps complete, and a store that records which
// members each area of the suite called: the suite fails on a dialect where a member was never called.

import type { Store } from "../../../src/store/store.js";

/** Every Store member: adding one to the interface without listing it here fails to compile. */
export const STORE_MEMBERS: Record<keyof Store, true> = {
  insertTasks: true,
  tasksByKeys: true,
  sendEvent: true,
  loadSteps: true,
  recordStep: true,
  receiveEvent: true,
  suspend: true,
  linkChildren: true,
  childStates: true,
  suspendForChildren: true,
  wakeParent: true,
  claimByIds: true,
  claimDue: true,
  complete: true,
  deleteSucceeded: true,
  addSuccessTallies: true,
  fail: true,
  extendLeases: true,
  release: true,
  findExpiredLeases: true,
  probeWork: true,
  holdExpiredLease: true,
  requeueExpired: true,
  abandonExpired: true,
  findUnpublished: true,
  queuesWithStaleWakeups: true,
  findStaleWakeups: true,
  markPublished: true,
  markUnpublished: true,
  prune: true,
  syncSchedules: true,
  claimScheduleSlot: true,
  advanceSchedule: true,
  listSchedules: true,
  pruneScheduleSlots: true,
  pauseQueue: true,
  resumeQueue: true,
  listQueues: true,
  queueUsage: true,
  syncQueues: true,
  retryTask: true,
  retryDeadTasks: true,
  cancelTask: true,
  runTaskNow: true,
  now: true,
  countTasks: true,
  countTasksUpTo: true,
  pendingAges: true,
  findTask: true,
  hasBrowseIndex: true,
  browseIndexAdvice: true,
  listTaskGroups: true,
  countGroups: true,
  listTasks: true,
  recentWorkers: true,
  stuckTasks: true,
  finishedPerMinute: true,
  queueActivity: true,
  defaultLockKey: true,
  leaderLock: true,
  leaderHolder: true,
  dialect: true,
  displayName: true,
  wakeupIdentity: true,
  notifications: true,
  prepare: true,
  sharedConnection: true,
  endFailedTransaction: true,
  transaction: true,
  through: true,
  withAsyncCommit: true,
  check: true,
  classify: true,
  close: true,
};

export type StoreMember = keyof Store;

function wrapDefined(store: Store | undefined, wrap: (store: Store) => Store): Store | undefined {
  return store && wrap(store);
}

/** Which areas of the suite used each member (a method called, or a property read). */
export class MemberRecord {
  private readonly used = new Map<StoreMember, Set<string>>();
  /** The area whose case runs now; what the store is asked is put down to it. */
  area = "(set-up)";

  note(member: StoreMember): void {
    let areas = this.used.get(member);
    if (!areas) this.used.set(member, (areas = new Set()));
    areas.add(this.area);
  }

  /** Members no case used. */
  unused(): StoreMember[] {
    return (Object.keys(STORE_MEMBERS) as StoreMember[]).filter((member) => !this.used.has(member));
  }

  /** Each member with the areas that used it, in the interface's order. */
  table(): Array<[StoreMember, string[]]> {
    return (Object.keys(STORE_MEMBERS) as StoreMember[]).map((member) => [member, [...(this.used.get(member) ?? [])].sort()]);
  }

  /**
   * `store` wrapped so that every member read or called is noted; the stores it hands out (transaction's, through's)
   * are wrapped too.
   */
  wrap(store: Store): Store {
    return new Proxy(store, {
      get: (target, property, receiver) => {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof property !== "string" || !Object.hasOwn(STORE_MEMBERS, property)) return value;
        const member = property as StoreMember;
        this.note(member);
        if (typeof value !== "function") return value;
        if (member === "through") return (prisma: unknown) => this.wrap(target.through(prisma));
        if (member === "withAsyncCommit") return () => wrapDefined(target.withAsyncCommit(), (store) => this.wrap(store));
        if (member === "transaction") return <T>(fn: (tx: Store) => Promise<T>) => target.transaction((tx) => fn(this.wrap(tx)));
        return (value as (...args: unknown[]) => unknown).bind(target);
      },
    });
  }
}
