// One connection per client (SQLite): the client's transactions go through a gate one at a time, and one that failed is
// ended on the connection before the next starts, so no later BEGIN or statement runs inside a dead transaction.

import { AsyncLocalStorage } from "node:async_hooks";
import type { Store } from "../store/store.js";

/** A holder of the gate, active while its transaction runs. */
interface Hold {
  active: boolean;
}

/**
 * Runs transactions of one client one at a time. Reentrant: a transaction started by code that already holds the gate
 * (a worker's transactional run through the extended client) passes straight through.
 */
export class TransactionGate {
  private tail: Promise<unknown> = Promise.resolve();
  private readonly holds = new AsyncLocalStorage<Hold>();
  private unusable: Error | undefined;

  /** From now on every transaction through the gate fails with `error` at once: the client can run none. */
  refuse(error: Error): void {
    this.unusable = error;
  }

  /** True when the calling code runs inside a transaction of this gate that has not ended yet. */
  get held(): boolean {
    return this.holds.getStore()?.active === true;
  }

  /**
   * Runs `attempt` (one whole transaction) once the gate is free; when it fails, `end()` ends whatever it left open
   * before the next transaction may start. Rejects with attempt's error, or with end()'s when that fails too.
   */
  run<T>(attempt: () => Promise<T>, end: () => Promise<void>): Promise<T> {
    if (this.held) return attempt();
    const hold: Hold = { active: true };
    const run = this.tail.then(() =>
      this.holds.run(hold, async () => {
        if (this.unusable) throw this.unusable;
        try {
          return await attempt();
        } catch (error) {
          await end();
          throw error;
        } finally {
          hold.active = false;
        }
      }),
    );
    this.tail = run.catch(() => {});
    return run;
  }
}

const gates = new WeakMap<object, TransactionGate>();

/**
 * The gate of the connection behind `client`, shared by every extension of one Prisma client (they share its engine),
 * or undefined when the store's dialect gives each statement a connection of its own (PostgreSQL, MySQL).
 */
export function transactionGate(client: object, store: Pick<Store, "sharedConnection">): TransactionGate | undefined {
  if (!store.sharedConnection) return undefined;
  const key = ((client as { _engine?: unknown })._engine as object | undefined) ?? client;
  let gate = gates.get(key);
  if (!gate) gates.set(key, (gate = new TransactionGate()));
  return gate;
}
