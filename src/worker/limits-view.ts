// The limits a worker's claims keep to. A queue's concurrency and rate of starts are facts of the database: its row in
// the queue table, written by a worker's `queueLimits` when it starts or by `task-runner limit`. The worker reads them
// at start, again every LIMITS_REFRESH_MS, and at once when a claim finds a queue limited that it does not count; the
// handled tasks' own `concurrency` (per key) comes from their definitions. Until a worker has read a new limit, its
// claims leave that queue's tasks alone (the claim itself skips a queue whose row declares limits), so a limit holds
// for every worker from the moment it is written.

import { errorMessage } from "../error-text.js";
import type { Logger } from "../logger.js";
import type { ClaimLimits, QueueLimits, QueueState } from "../store/queue-controls.js";
import type { Store } from "../store/store.js";

/** How often a worker reads the queues' limits again. */
export const LIMITS_REFRESH_MS = 5_000;
/** The shortest time between two reads asked for by claims that found a queue limited. */
const SOON_MS = 200;

interface LimitsViewParts {
  store: Pick<Store, "listQueues">;
  /** The queues the worker serves. */
  queues: readonly string[];
  /** What the worker's own configuration declares (queueLimits and the tasks' concurrency), as resolved at start. */
  declared: ClaimLimits;
  logger: Logger;
  /** Writes the worker's queueLimits into the queues' rows when the start could not; true once written. */
  declare?: () => Promise<boolean>;
  /** Told the limits each time they change, and once at start (`first`). */
  apply: (limits: ClaimLimits, first: boolean) => void;
}

export class LimitsView {
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;
  private lastRead = 0;
  private current: ClaimLimits | undefined;
  private stopped = false;

  constructor(private readonly parts: LimitsViewParts) {}

  /**
   * Reads the limits once (falling back to the declared ones when the read fails) and keeps them fresh. `wait` false
   * (the database did not answer at start): starts with the declared ones and reads in the background.
   */
  async start(wait = true): Promise<void> {
    if (wait) await this.read();
    if (!this.current) this.use(this.parts.declared);
    if (!wait) void this.read();
    this.timer = setInterval(() => void this.read(), LIMITS_REFRESH_MS);
    this.timer.unref();
  }

  /** A claim found `queue` limited in the database while this worker does not count it: read the limits again now. */
  limitedElsewhere(queue: string): void {
    if (this.stopped || this.current?.[queue] !== undefined) return;
    if (performance.now() - this.lastRead < SOON_MS) return;
    void this.read();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private read(): Promise<void> {
    this.reading ??= this.readNow().finally(() => (this.reading = undefined));
    return this.reading;
  }

  private async readNow(): Promise<void> {
    this.lastRead = performance.now();
    if (this.parts.declare && (await this.parts.declare().catch(() => false))) this.parts.declare = undefined;
    let rows: QueueState[];
    try {
      rows = await this.parts.store.listQueues();
    } catch (error) {
      this.parts.logger.warn("could not read the queues' limits; the claims keep to the last ones read", { error: errorMessage(error) });
      return;
    }
    if (this.stopped) return;
    this.use(mergeLimits(rows, this.parts.declared, this.parts.queues));
  }

  private use(limits: ClaimLimits): void {
    const before = this.current;
    this.current = limits;
    if (before !== undefined && sameLimits(before, limits)) return;
    for (const queue of this.parts.queues) {
      const was = before?.[queue];
      const now = limits[queue];
      if (sameQueueLimits(before === undefined ? this.parts.declared[queue] : was, now)) continue;
      this.parts.logger.info(before === undefined ? "queue limited in the database beyond this worker's queueLimits" : "queue limits changed in the database", {
        queue,
        concurrency: now?.concurrency ?? null,
        rateLimit: now?.rateLimit ?? null,
      });
    }
    this.parts.apply(limits, before === undefined);
  }
}

/** The limits of the served queues: each queue's row, with the handled tasks' limits per key. */
export function mergeLimits(rows: readonly QueueState[], declared: ClaimLimits, queues: readonly string[]): ClaimLimits {
  const byQueue = new Map(rows.map((row) => [row.queue, row]));
  const limits: Record<string, QueueLimits> = {};
  for (const queue of queues) {
    const row = byQueue.get(queue);
    const tasks = declared[queue]?.tasks;
    const own: QueueLimits = {
      ...(row?.concurrency != null && { concurrency: row.concurrency }),
      ...(row?.rateLimit != null && { rateLimit: row.rateLimit }),
      ...(tasks !== undefined && { tasks }),
    };
    if (Object.keys(own).length > 0) limits[queue] = own;
  }
  return limits;
}

/** Whether two queues' limits agree on their concurrency and rate (per-key limits come from the code, alike for all). */
function sameQueueLimits(a: QueueLimits | undefined, b: QueueLimits | undefined): boolean {
  return (a?.concurrency ?? null) === (b?.concurrency ?? null) && sameRate(a, b);
}

function sameRate(a: QueueLimits | undefined, b: QueueLimits | undefined): boolean {
  return a?.rateLimit?.starts === b?.rateLimit?.starts && a?.rateLimit?.perMs === b?.rateLimit?.perMs;
}

function sameLimits(a: ClaimLimits, b: ClaimLimits): boolean {
  const queues = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...queues].every((queue) => sameQueueLimits(a[queue], b[queue]));
}
