// Knows which Prisma transaction an enqueue runs in, so wake-ups leave only after that transaction commits.
// Prisma 7 tags every transaction client with a scope id (nested transactions get their own); Prisma 6 has no
// tag, so there the scope rides on AsyncLocalStorage while a client without $transaction marks a transaction.

import { AsyncLocalStorage } from "node:async_hooks";
import type { EnqueueBatch } from "./committed-enqueues.js";

/** A task whose wake-up waits for a commit. */
export interface Wakeup {
  id: string;
  queue: string;
  /** Set for a task due later: when it is due, on this process's performance.now() clock. */
  dueAt?: number;
}

/** The wake-ups and enqueues of one (possibly nested) transaction, handed on when it commits. */
export class TransactionScope {
  readonly wakeups: Wakeup[] = [];
  /** The enqueue calls made in it, for the extension's commit listeners. */
  readonly enqueued: EnqueueBatch[] = [];

  /** Records one enqueue call and the wake-ups its rows need. */
  add(batch: EnqueueBatch, wakeups: readonly Wakeup[]): void {
    this.enqueued.push(batch);
    if (wakeups.length > 0) this.wakeups.push(...wakeups);
  }

  /** Takes over what a nested transaction that committed into this one recorded. */
  absorb(inner: TransactionScope): void {
    this.wakeups.push(...inner.wakeups);
    this.enqueued.push(...inner.enqueued);
  }
}

const SCOPE_CONTEXT = Symbol.for("prisma.client.transaction.scope_context");

interface ScopeContext {
  kind: "nested";
  scopeId: string;
}

/** Where an enqueue runs: outside any transaction, in a transaction we track, or in one we cannot see the end of. */
type Placement = { kind: "autocommit" } | { kind: "transaction"; scope: TransactionScope } | { kind: "untracked" };

export class TransactionScopes {
  private readonly byId = new Map<string, TransactionScope>();
  private readonly storage = new AsyncLocalStorage<TransactionScope>();

  /** Where a statement sent through `client` runs. */
  placement(client: object): Placement {
    const context = scopeContext(client);
    if (context) {
      const scope = this.byId.get(context.scopeId);
      return scope ? { kind: "transaction", scope } : { kind: "untracked" };
    }
    if (typeof (client as { $transaction?: unknown }).$transaction !== "function") {
      const scope = this.storage.getStore();
      return scope ? { kind: "transaction", scope } : { kind: "untracked" };
    }
    return { kind: "autocommit" };
  }

  /** Runs `fn(tx)` with `scope` attached to `tx`, and detaches it when `fn` settles. */
  async within<T>(tx: object, scope: TransactionScope, fn: () => Promise<T>): Promise<T> {
    const context = scopeContext(tx);
    if (!context) return this.storage.run(scope, fn);
    this.byId.set(context.scopeId, scope);
    try {
      return await fn();
    } finally {
      // Statements of this scope are all sent by now; a late enqueue on a leaked tx finds no scope and is left to the cleaner.
      this.byId.delete(context.scopeId);
    }
  }
}

function scopeContext(client: object): ScopeContext | undefined {
  const context = (client as Record<symbol, unknown>)[SCOPE_CONTEXT] as ScopeContext | undefined;
  return context?.kind === "nested" && typeof context.scopeId === "string" ? context : undefined;
}
