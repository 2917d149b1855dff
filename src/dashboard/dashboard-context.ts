// What every route needs: the store, the validated settings, the wake-up publisher, and whether to advise the browse
// index (checked once a minute: advised, with one warning, only when it is missing on a table large enough to need it).

import type { Store } from "../store/store.js";
import type { DashboardSettings } from "./dashboard-options.js";
import type { Wakeups } from "./wakeups.js";

const RECHECK_MS = 60_000;

/**
 * From this many tasks on, a missing browse index is advised. Below it the overview's counts and the filtered lists
 * cost about the same without the index (measured on PostgreSQL with bench/dashboard-browse-index.ts: at 10,000 rows
 * the same; at 30,000–50,000 about 25–30 ms more; from 100,000 over 100 ms at the median and 2–8 times slower); see
 * docs/dashboard.md.
 */
export const BROWSE_INDEX_ADVICE_ROWS = 100_000;

/** What the dashboard knows about the browse index. */
interface BrowseIndexState {
  /** The index exists: lists and counts walk it. */
  present: boolean;
  /** It is missing on a table of at least BROWSE_INDEX_ADVICE_ROWS tasks: the overview says so and the log warned. */
  advised: boolean;
}

export class DashboardContext {
  readonly lockKey: number;
  private browse: { state: BrowseIndexState; at: number } | undefined;
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
    return (await this.browseIndexState()).present;
  }

  /** The index and whether to advise it, cached for a minute; warns once when it starts being advised. */
  async browseIndexState(): Promise<BrowseIndexState> {
    const now = Date.now();
    if (this.browse && now - this.browse.at < RECHECK_MS) return this.browse.state;
    const present = await this.store.hasBrowseIndex();
    const advised = !present && (await this.store.countTasksUpTo(BROWSE_INDEX_ADVICE_ROWS)) >= BROWSE_INDEX_ADVICE_ROWS;
    this.browse = { state: { present, advised }, at: now };
    if (advised && !this.warned) {
      this.warned = true;
      this.settings.logger.warn(
        `the task table has no browse index and at least ${BROWSE_INDEX_ADVICE_ROWS.toLocaleString("en-US")} tasks: the dashboard's counts and filtered lists scan it`,
        { create: this.store.browseIndexAdvice() },
      );
    }
    return this.browse.state;
  }
}
