// Runs a client's committed tasks after the response, in the same invocation: with `after` (Next.js's, from
// "next/server") set on taskQueue(), each commit that enqueued due tasks hands `after` one callback that claims those
// tasks by id and runs them as a worker does (lease, timeout, outcome under the run's attempt). A task whose timeout does
// not fit in `afterBudgetMs` or one claimed by a worker first is left to the cron route or the workers. A transactional
// task runs in a transaction of the client that enqueued it. A rollback commits nothing and calls nothing.

import type { TaskRegistry } from "../define-tasks.js";
import type { EnqueueBatch } from "../enqueue/committed-enqueues.js";
import { errorMessage } from "../error-text.js";
import type { Logger } from "../logger.js";
import type { Store } from "../store/store.js";
import { resolveWorkerOptions, type ResolvedWorkerOptions } from "../worker/worker-options.js";
import { DueRuns, LEASE_MARGIN_MS } from "./due-runs.js";

/** Next.js's `after`: runs the callback once the response is sent, within the same invocation. */
export type AfterResponse = (callback: () => Promise<void>) => void;

/** What a client's commits hand over: the committed batches. */
export type AfterCommit = (batches: readonly EnqueueBatch[]) => void;

export function runAfterResponse(options: {
  after: AfterResponse;
  tasks: TaskRegistry;
  store: Store;
  budgetMs: number;
  logger: Logger;
  /** The extended client: transactional handlers run in its `$transaction`, with `ctx.prisma` set to it. */
  prisma: () => unknown;
}): AfterCommit {
  let resolved: ResolvedWorkerOptions | undefined;
  const runnable = new Set(
    Object.entries(options.tasks)
      // A task limited per key (its `concurrency`) is left to the cron route or a worker: their claims count its key's
      // runs under the queue's lock, in a transaction the app's client cannot give this claim on every database.
      .filter(([, definition]) => typeof definition.handler === "function" && definition.concurrency === undefined)
      .map(([name]) => name),
  );
  return (batches) => {
    const ids = batches.flatMap((batch) => batch.inserted.filter((row) => row.created && row.due && runnable.has(batch.prepared[row.i]!.name)).map((row) => row.id!));
    if (ids.length === 0) return;
    resolved ??= resolveWorkerOptions({
      tasks: options.tasks,
      store: options.store,
      wakeups: "polling",
      concurrency: 4,
      leaseMs: options.budgetMs + LEASE_MARGIN_MS,
      logger: options.logger,
      prisma: options.prisma(),
    });
    const worker = resolved;
    const run = async () => {
      const runs = new DueRuns(worker, options.store, performance.now() + options.budgetMs);
      try {
        await runs.claimIds(ids);
        await runs.settle();
      } catch (error) {
        options.logger.warn("tasks not run after the response; the cron route or a worker runs them", { tasks: ids.length, error: errorMessage(error) });
      }
    };
    // The transaction has committed: a refusal of `after` (called outside a request, say) must not fail the caller.
    try {
      options.after(run);
    } catch (error) {
      options.logger.warn("after() did not take the committed tasks (outside a request?); the cron route or a worker runs them", {
        tasks: ids.length,
        error: errorMessage(error),
      });
    }
  };
}
