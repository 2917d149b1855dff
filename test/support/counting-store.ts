// A store that counts the operations asked of it, so a test can assert how many claims or completions a worker sent
// without reading SQL text (which differs per dialect). Stores it hands out (through, transaction, withAsyncCommit) count too.

import type { Store } from "../../src/store/store.js";

/** `store` wrapped so that every operation call adds one to `calls[name]`. */
export function countingStore(store: Store, calls = new Map<string, number>()): { store: Store; calls: Map<string, number> } {
  const wrap = (inner: Store): Store =>
    new Proxy(inner, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof value !== "function" || typeof property !== "string") return value;
        return (...args: unknown[]) => {
          calls.set(property, (calls.get(property) ?? 0) + 1);
          if (property === "through") return wrap((value as (...a: unknown[]) => Store).apply(target, args));
          if (property === "withAsyncCommit") {
            const view = (value as () => Store | undefined).apply(target);
            return view && wrap(view);
          }
          if (property === "transaction") {
            const fn = args[0] as (tx: Store) => Promise<unknown>;
            return (value as (fn: (tx: Store) => Promise<unknown>) => Promise<unknown>).call(target, (tx) => fn(wrap(tx)));
          }
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  return { store: wrap(store), calls };
}
