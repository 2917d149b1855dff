// Claims tasks named by wake-ups. Ids asked for in the same event-loop turn (or while a claim statement runs)
// are claimed together in one statement; each caller gets its own id's outcome.

import type { WorkerStore } from "../store/store.js";
import type { ClaimByIdResult, ClaimFilter } from "../store/task-writes.js";
import { StatementBatcher } from "./statement-batcher.js";

export class Claimer {
  private readonly batcher: StatementBatcher<string, ClaimByIdResult>;

  /** `limitedElsewhere`: told of a queue the claim found limited in the database that the filter does not count. */
  constructor(store: WorkerStore, filter: ClaimFilter, limitedElsewhere?: (queue: string) => void) {
    this.batcher = new StatementBatcher(async (ids) => {
      const results = await store.claimByIds(ids, filter);
      for (const result of results) {
        if (!result.claimed && result.reason === "limited" && result.queue !== undefined && filter.limits?.[result.queue] === undefined) limitedElsewhere?.(result.queue);
      }
      const byId = new Map(results.map((result) => [result.id, result]));
      // The same id twice in one batch: the first asker gets the task, the others see it running already.
      const handedOut = new Set<string>();
      return ids.map((id): ClaimByIdResult => {
        const result = byId.get(id) ?? { id, claimed: null, reason: "missing" };
        if (result.claimed && handedOut.has(id)) return { id, claimed: null, reason: "not-pending", name: result.claimed.name, queue: result.claimed.queue };
        handedOut.add(id);
        return result;
      });
    }, 500);
  }

  /** Claims `ids` with the next batch; one outcome per id, in order. Rejects when the statement failed. */
  claimMany(ids: string[]): Promise<ClaimByIdResult[]> {
    return this.batcher.addMany(ids);
  }

  async flush(): Promise<void> {
    await this.batcher.flush();
  }
}
