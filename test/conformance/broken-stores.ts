// Deliberately broken stores, to prove the conformance suite can fail: each breaks one guarantee the way a careless
// dialect would, on top of a real store, so the same wrapper breaks every dialect alike.

import type { LeaderLock } from "../../src/store/leader-lock.js";
import type { Store } from "../../src/store/store.js";
import type { ClaimByIdResult } from "../../src/store/task-writes.js";

export type BrokenKind = "claim-without-lock" | "complete-without-lease-guard" | "leader-grants-twice";

export const BROKEN_KINDS: readonly BrokenKind[] = ["claim-without-lock", "complete-without-lease-guard", "leader-grants-twice"];

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
  return new Proxy(store, {
    get(target, property, receiver) {
      if (typeof property === "string" && property in overrides) return overrides[property as keyof Store];
      if (property === "through") return (prisma: unknown) => brokenStore(target.through(prisma), kind);
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
