// The worker's claims: by id for wake-ups (retried while the statement fails, e.g. the database is unreachable), and
// of due tasks for the poller, sized by the free claim slots and the claim budget's lead.

import { errorMessage } from "../error-text.js";
import type { Logger } from "../logger.js";
import type { Store } from "../store/store.js";
import type { TaskRecord } from "../store/task-record.js";
import type { ClaimByIdResult, ClaimFilter } from "../store/task-writes.js";
import type { ClaimBudget } from "./claim-budget.js";
import type { Claimer } from "./claimer.js";
import type { RunLauncher } from "./run-launcher.js";
import type { Slots } from "./slots.js";
import type { StopSignal } from "./stop-signal.js";

/** Longest pause between attempts of a claim statement that failed (database unreachable). */
const CLAIM_FAILURE_MAX_PAUSE_MS = 2000;

interface ClaimLoopParts {
  store: Store;
  claimer: Claimer;
  filter: ClaimFilter;
  /** The worker's concurrency: what can run now, the claim budget's lead comes on top. */
  concurrency: number;
  claims: Slots;
  budget: ClaimBudget;
  launcher: RunLauncher;
  logger: Logger;
  stop: StopSignal;
  /** Counts a claim in flight, so shutdown waits for it. */
  track<T>(promise: Promise<T>): Promise<T>;
}

export class ClaimLoop {
  constructor(private readonly parts: ClaimLoopParts) {}

  /** Claims `ids`, for which claim slots are held, retrying while the statement fails; undefined when stopping. */
  async claimHeld(ids: string[]): Promise<ClaimByIdResult[] | undefined> {
    const { claimer, logger, stop, claims } = this.parts;
    for (let failures = 1; ; failures++) {
      try {
        return await claimer.claimMany(ids);
      } catch (error) {
        if (failures === 1 || failures % 10 === 0) {
          logger.warn("claim failed; retrying", { taskIds: ids.slice(0, 10), tasks: ids.length, error: errorMessage(error) });
        }
        // Claims of every waiting wake-up go out as one statement, so retrying every 2 s at most costs little; a
        // longer pause would leave the worker idle well after the database is back.
        if (!(await stop.pause(Math.min(CLAIM_FAILURE_MAX_PAUSE_MS, 100 * 2 ** failures)))) {
          claims.release(ids.length);
          return undefined;
        }
      }
    }
  }

  /**
   * Claims due tasks for the free claim slots: what can run now plus the claim budget's lead (about 100 ms of
   * work at the recent pace, so a slow worker claims only what it can run and never empties the table for itself).
   * While at least half the lead is still in hand it claims nothing and says "full", so the poller comes back as slots
   * free: a fast worker claims hundreds of tasks per statement instead of one statement per freed slot. True when it
   * filled every free slot (there may be more).
   */
  async pollDue(): Promise<boolean> {
    const { store, filter, concurrency, claims, budget, launcher, stop } = this.parts;
    if (stop.stopping) return false;
    claims.setLimit(budget.limit());
    const lead = Math.max(0, claims.limit - concurrency);
    if (claims.free < Math.max(1, Math.ceil(lead / 2))) return true;
    const taken = claims.tryAcquire(claims.free);
    if (taken === 0) return false;
    let rows: TaskRecord[];
    try {
      rows = await this.parts.track(store.claimDue(taken, filter));
    } catch (error) {
      claims.release(taken);
      throw error;
    }
    const full = rows.length === taken;
    if (rows.length < taken) claims.release(taken - rows.length);
    for (const row of rows) launcher.launch(row, "poll");
    return full;
  }
}
