// A store whose worker operations (claims, outcomes, lease writes, releases) tell a listener about every call: its
// name, when it started and ended (wall ms, clock.ts), its arguments and its result. The latency and drain traces use it.

import type { Store } from "../../src/index.js";
import { wallMs } from "../clock.js";

/** The operations a worker runs on its hot path. */
const TIMED = new Set(["claimByIds", "claimDue", "complete", "fail", "extendLeases", "release"]);

export type OperationListener = (operation: string, startedMs: number, endedMs: number, args: unknown[], result: unknown) => void;

/** `store` with its hot-path operations reported to `listener`; everything else passes through untouched. */
export function timedStore(store: Store, listener: OperationListener): Store {
  return new Proxy(store, {
    get(inner, property) {
      const value = Reflect.get(inner, property) as unknown;
      if (typeof value !== "function" || typeof property !== "string") return value;
      // The worker's claims and completions may go through the store's view whose commits do not wait for the flush.
      if (property === "withAsyncCommit") return () => wrapDefined(inner.withAsyncCommit(), listener);
      if (!TIMED.has(property)) return (value as (...args: unknown[]) => unknown).bind(inner);
      return async (...args: unknown[]) => {
        const began = wallMs();
        const result = await (value as (...a: unknown[]) => unknown).apply(inner, args);
        listener(property, began, wallMs(), args, result);
        return result;
      };
    },
  });
}

function wrapDefined(store: Store | undefined, listener: OperationListener): Store | undefined {
  return store && timedStore(store, listener);
}
