// One sweep of the leading cleaner: fire recurring tasks, wake due tasks, recover expired leases, prune finished tasks, each step in
// bounded batches. A failing step is reported and the next one still runs.

import type { Logger } from "../logger.js";
import type { Store } from "../store/store.js";
import type { WakeupTransport } from "../wakeups/transport.js";
import type { WakeupSender } from "../wakeups/wakeup-sender.js";
import type { ResolvedCleanerOptions } from "./cleaner-options.js";
import { pruneFinished } from "./prune-step.js";
import { recoverExpiredLeases } from "./recovery-step.js";
import type { ScheduleFiring } from "./schedule-step.js";
import { publishDueWakeups } from "./wakeup-step.js";

/** What one sweep did. */
export interface CleanerPass {
  /** False when this cleaner does not lead: it then did nothing else. */
  leader: boolean;
  /** Tasks enqueued for the slots of recurring schedules. */
  fired: number;
  /** Wake-ups the broker confirmed (never-published, delayed, retried and stale tasks, and recovered ones). */
  published: number;
  /** Tasks whose lease expired that went back to pending. */
  retried: number;
  /** Tasks whose lease expired that went to dead. */
  dead: number;
  /** Finished tasks deleted. */
  pruned: number;
  /** One line per step that failed ("recover: connection refused"). Empty when all went well. */
  errors: string[];
  durationMs: number;
}

/** What the steps share. */
export interface SweepContext {
  options: ResolvedCleanerOptions;
  store: Store;
  transport: WakeupTransport;
  /** Sends wake-ups and records the confirmed ones as published. */
  sender: WakeupSender;
  logger: Logger;
  /** False once the step has used its time, leadership was lost or the cleaner is stopping: stop between batches. */
  more(startedAt: number): boolean;
  /** The recurring schedules this cleaner fires. */
  schedules: ScheduleFiring;
  /** When (performance.now()) the last search for stale wake-ups ran; the wake-up step reads and sets it. */
  staleCheck: { at: number | undefined };
}

export async function sweep(ctx: SweepContext): Promise<CleanerPass> {
  const startedAt = performance.now();
  const pass: CleanerPass = { leader: true, fired: 0, published: 0, retried: 0, dead: 0, pruned: 0, errors: [], durationMs: 0 };
  const step = async (name: string, run: () => Promise<void>) => {
    try {
      await run();
    } catch (error) {
      pass.errors.push(`${name}: ${(error as Error).message}`);
    }
  };
  await step("schedule", async () => {
    pass.fired += await ctx.schedules.fire(ctx);
  });
  await step("wake", async () => {
    pass.published += await publishDueWakeups(ctx);
  });
  await step("recover", async () => {
    const recovered = await recoverExpiredLeases(ctx);
    pass.retried += recovered.retried;
    pass.dead += recovered.dead;
    pass.published += recovered.published;
  });
  await step("prune", async () => {
    pass.pruned += await pruneFinished(ctx);
    await ctx.schedules.prune(ctx);
  });
  pass.durationMs = Math.round(performance.now() - startedAt);
  return pass;
}
