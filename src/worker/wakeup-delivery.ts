// The worker's handling of one wake-up, or of the ids its timers found due: they take free claim slots and are claimed
// together; an id whose row is not there yet (the message overtook the commit) or is locked is tried again, one not
// due yet goes back to its timer; ids that wait too long for a slot are handed back.

import type { Logger } from "../logger.js";
import type { ClaimByIdResult, ClaimFilter } from "../store/task-writes.js";
import type { WakeupListener, WakeupTransport } from "../wakeups/transport.js";
import type { WakeupSender } from "../wakeups/wakeup-sender.js";
import type { ClaimBudget } from "./claim-budget.js";
import type { ClaimLoop } from "./claim-loop.js";
import type { TimedIds } from "./due-timers.js";
import { logDroppedWakeup } from "./dropped-wakeup.js";
import type { Poller } from "./poller.js";
import type { RunLauncher } from "./run-launcher.js";
import type { Slots } from "./slots.js";
import type { StopSignal } from "./stop-signal.js";

/** Pauses before claiming again an id whose row is missing (the message overtook the commit) or locked: ~1.5 s in all. */
const CLAIM_RETRY_DELAYS_MS = [50, 100, 200, 400, 800];
/**
 * How long a wake-up's ids wait for a claim slot before they are handed back to the queue for another worker (when the
 * queue has one): a worker busy with slow tasks does not sit on a message of many ids while other workers are idle.
 */
const HAND_BACK_AFTER_MS = 200;

/** How long one answer about a queue's consumers and waiting wake-ups serves the hand-backs that ask after it. */
const QUEUE_STATE_REUSE_MS = 50;

type QueueState = { consumers: number; ready: number };

type IdOutcome = "claimed" | "dropped" | "abandoned";

interface WakeupDeliveryParts {
  transport: WakeupTransport;
  /** The listener of the transport, once it is made (it is made with this delivery). */
  listener: () => WakeupListener;
  sender: WakeupSender;
  poller: Poller;
  claimLoop: ClaimLoop;
  launcher: RunLauncher;
  claims: Slots;
  budget: ClaimBudget;
  filter: ClaimFilter;
  logger: Logger;
  stop: StopSignal;
}

export class WakeupDelivery {
  /** The broker's answer about a queue, asked once for every wake-up that waits for a slot at about the same time. */
  private readonly queueStates = new Map<string, { answer: Promise<QueueState | undefined>; answeredAt?: number }>();

  constructor(private readonly parts: WakeupDeliveryParts) {}

  /**
   * Handles the ids of one wake-up; true when the message may be acked (every id claimed or dropped). Takes as many
   * claim slots as are free and claims those ids in one statement (with other wake-ups' ids of the same turn).
   */
  async deliver(ids: string[], queue: string, timed?: TimedIds): Promise<boolean> {
    const { claims, budget, claimLoop, launcher } = this.parts;
    const waiting = ids.length > 1 ? [...new Set(ids)] : ids;
    const later: Array<Promise<IdOutcome>> = [];
    let abandoned = false;
    while (waiting.length > 0) {
      claims.setLimit(budget.limit());
      const taken = await this.claimSlots(waiting, queue);
      if (taken === "handed back") break;
      const results = taken > 0 ? await claimLoop.claimHeld(waiting.splice(0, taken)) : undefined;
      if (!results) {
        abandoned = true;
        break;
      }
      for (const result of results) {
        if (result.claimed) launcher.launch(result.claimed, timed ? "timer" : "wakeup");
        else later.push(this.claimLater(result, timed));
      }
    }
    const outcomes = await Promise.all(later);
    return !abandoned && !outcomes.includes("abandoned");
  }

  /**
   * Claim slots for up to `ids.length` of the ids (0 when stopping). After HAND_BACK_AFTER_MS without a slot, when
   * another worker consumes the queue and finds nothing ready in it, the ids are published again for it instead
   * ("handed back").
   */
  private async claimSlots(ids: string[], queue: string): Promise<number | "handed back"> {
    const { claims, stop } = this.parts;
    const taken = await claims.acquireUpTo(ids.length, HAND_BACK_AFTER_MS);
    if (taken > 0 || stop.stopping) return taken;
    if (await this.handBack(ids, queue)) return "handed back";
    return claims.acquireUpTo(ids.length);
  }

  /**
   * With a transport that fans out (NOTIFY), lets the ids go and catches up by polling. Otherwise publishes `ids` again
   * when another worker consumes `queue` and no message waits ready in it (so that worker may be
   * idle; while messages wait, every worker has work and handing back would only shuffle it). True once the publish
   * settled. Should the broker not confirm it, the ids are still pending rows marked published, which the cleaner
   * re-sends once republishAfterMs old.
   */
  private async handBack(ids: string[], queue: string): Promise<boolean> {
    const { transport, poller, sender, logger, stop } = this.parts;
    if (transport.fansOut && !stop.stopping) {
      // Every listening worker got these ids: an idle one claims them now; this one polls for work as its slots free
      // instead of holding ids that are likely taken by then.
      poller.catchUp();
      logger.debug("wake-up ids left to other workers and to polling", { queue, tasks: ids.length });
      return true;
    }
    const state = await this.queueState(queue);
    if (!state || state.consumers < 2 || state.ready > 0 || stop.stopping) return false;
    sender.send(ids.map((id) => ({ id, queue })));
    await sender.flush();
    logger.debug("wake-up ids handed back for another worker", { queue, tasks: ids.length, consumers: state.consumers });
    return true;
  }

  /**
   * How many consumers `queue` has and how many wake-ups wait in it. Wake-ups that waited HAND_BACK_AFTER_MS for a slot
   * together (a full prefetch of one-task wake-ups behind slow handlers) share one question to the broker, and its
   * answer for QUEUE_STATE_REUSE_MS, instead of asking once each.
   */
  private queueState(queue: string): Promise<QueueState | undefined> {
    const known = this.queueStates.get(queue);
    if (known && (known.answeredAt === undefined || performance.now() - known.answeredAt < QUEUE_STATE_REUSE_MS)) return known.answer;
    const asked: { answer: Promise<QueueState | undefined>; answeredAt?: number } = { answer: this.parts.listener().queueState(queue) };
    this.queueStates.set(queue, asked);
    const answered = () => void (asked.answeredAt = performance.now());
    asked.answer.then(answered, answered);
    return asked.answer;
  }

  /**
   * An id the claim did not take: its slot is given back, and a missing row (the message overtook the commit) or a
   * locked one is tried again after growing pauses; one a timer found due that is not yet goes back to its timer, and
   * one it found taken (which may be a task that became due between the claim and the read of why) once, for 2 ms;
   * anything else, or still nothing after the pauses, is dropped.
   */
  private async claimLater(first: ClaimByIdResult, timed: TimedIds | undefined): Promise<IdOutcome> {
    const { claims, claimLoop, launcher, logger, filter, stop } = this.parts;
    let result = first;
    for (let retries = 0; ;) {
      if (result.claimed) {
        launcher.launch(result.claimed, timed ? "timer" : "wakeup");
        return "claimed";
      }
      claims.release();
      if (result.reason === "not-due" && timed?.notDue(result.id)) return "dropped";
      if ((result.reason === "not-pending" || result.reason === "locked") && timed?.taken(result.id)) return "dropped";
      const transient = result.reason === "missing" || result.reason === "locked";
      if (!transient || retries === CLAIM_RETRY_DELAYS_MS.length) {
        logDroppedWakeup(logger, result, filter);
        return "dropped";
      }
      if (!(await stop.pause(CLAIM_RETRY_DELAYS_MS[retries++]!))) return "abandoned";
      if (!(await claims.acquire())) return "abandoned";
      const next = await claimLoop.claimHeld([result.id]);
      if (!next) return "abandoned";
      result = next[0]!;
    }
  }
}
