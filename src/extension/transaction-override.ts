// The extension's $transaction: it runs Prisma's own, keeps the tasks enqueued inside in a scope, and hands their
// wake-ups on only once that transaction commits (to the outer transaction when nested); a rollback drops them.

import { failBatch, settleBatch, type EnqueueCore } from "../enqueue/enqueue-promise.js";
import type { TransactionGate } from "../enqueue/transaction-gate.js";
import { TransactionScope } from "../enqueue/transaction-scopes.js";
import { TaskClientUnusableError } from "../errors.js";
import type { InsertRequest } from "../store/enqueue-rows.js";
import { prismaVersion, type PrismaClientLike } from "./prisma-client.js";

/** What the override needs besides the enqueue core. */
export interface TransactionContext {
  /** The client being extended, with Prisma's own $transaction. */
  client: PrismaClientLike;
  /** One connection (SQLite): transactions one at a time, a failed one ended before the next; see TransactionGate. */
  gate: TransactionGate | undefined;
  /** Ends what a failed transaction left open on the shared connection. */
  endFailed: () => Promise<void>;
}

/** The $transaction the extended client gets; `this` is the client (or transaction client) it is called on. */
type TransactionMethod = (this: object, arg: unknown, transactionOptions?: unknown) => Promise<unknown>;

/** The base $transaction of the client being extended, taken before the extension replaces it. */
function baseTransactionOf(client: PrismaClientLike): PrismaClientLike["$transaction"] {
  return client.$transaction;
}

/**
 * Where the client runs every statement on one connection: how an enqueue outside a transaction runs its insert in a
 * transaction of its own, through the gate (see EnqueueCore.ownTransaction).
 */
export function ownTransaction({ client, gate, endFailed }: TransactionContext): EnqueueCore["ownTransaction"] {
  if (!gate) return undefined;
  const baseTransaction = baseTransactionOf(client);
  return {
    get held() {
      return gate.held;
    },
    run: (request: InsertRequest["request"]) => gate.run(async () => ((await baseTransaction.call(client, [request])) as unknown[])[0], endFailed),
  };
}

/** Builds the $transaction override of one extended client. */
export function transactionOverride(core: EnqueueCore, { client, gate, endFailed }: TransactionContext): TransactionMethod {
  const baseTransaction = baseTransactionOf(client);
  return async function transaction(this: object, arg: unknown, transactionOptions?: unknown) {
    const outer = core.scopes.placement(this);
    const settle = (committed: TransactionScope) => {
      if (outer.kind === "transaction") outer.scope.absorb(committed);
      else if (outer.kind === "autocommit") core.commit(committed.wakeups, committed.enqueued);
      else if (committed.wakeups.length > 0) core.untracked();
    };
    // A transaction nested in one of this client's (a savepoint) runs inside the outer one's turn at the gate.
    const atGate = <T>(attempt: () => Promise<T>) => (gate && outer.kind === "autocommit" ? gate.run(attempt, endFailed) : attempt());
    if (typeof arg === "function") {
      await core.ready;
      const scope = new TransactionScope();
      let callbackDone = false;
      const result = await atGate(async () => {
        try {
          return await baseTransaction.call(
            this,
            async (tx: object) => {
              const value = await core.scopes.within(tx, scope, () => (arg as (tx: object) => Promise<unknown>)(tx));
              callbackDone = true;
              return value;
            },
            transactionOptions,
          );
        } catch (error) {
          // Prisma 6 keeps the adapter's lock after a failed COMMIT: fail the client's next calls instead of hanging.
          if (gate && callbackDone && keepsLockAfterFailedCommit(client)) gate.refuse(new TaskClientUnusableError(prismaVersion(client), error));
          throw error;
        }
      });
      settle(scope);
      return result;
    }
    if (Array.isArray(arg)) {
      await core.ready;
      let results: unknown[];
      try {
        results = (await atGate(() => baseTransaction.call(this, arg, transactionOptions))) as unknown[];
      } catch (error) {
        failBatch(arg, error);
        throw error;
      }
      settle(await settleBatch(core, client, arg, results));
      return results;
    }
    return baseTransaction.call(this, arg, transactionOptions);
  };
}

/** True for Prisma 6, whose engine sends no release to the adapter after a COMMIT that failed (7 does). */
function keepsLockAfterFailedCommit(client: PrismaClientLike): boolean {
  return /^6\./.test(prismaVersion(client));
}
