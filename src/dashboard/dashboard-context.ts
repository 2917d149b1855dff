// What every route needs: the store, the validated settings, the wake-up publisher, and whether the task table has
// the browse index (checked once a minute, with one warning when it is missing).

import type { Store } from "../store/store.js";
import type { DashboardSettings } from "./dashboard-options.js";
import type { Wakeups } from "./wakeups.js";

const RECHECK_MS = 60_000;

export class DashboardContext {
  readonly lockKey: number;
  private browse: { value: boolean; at: number } | undefined;
  private warned = false;

  constructor(
    readonly store: Store,
    readonly settings: DashboardSettings,
    readonly wakeups: Wakeups,
  ) {
    this.lockKey = settings.cleanerLockKey ?? store.defaultLockKey();
  }

  /** Whether the browse index exists (cached for a minute, so a newly created index is picked up). */
  async browseIndex(): Promise<boolean> {
    const now = Date.now();
    if (this.browse && now - this.browse.at < RECHECK_MS) return this.browse.value;
    const value = await this.store.hasBrowseIndex();
    this.browse = { value, at: now };
    if (!value && !this.warned) {
      this.warned = true;
      this.settings.logger.warn("the task table has no browse index: the dashboard's task list and counts scan the table, slow past ~100k rows", {
        create: this.store.browseIndexAdvice(),
      });
    }
    return value;
  }
}
