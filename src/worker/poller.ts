// Polls the database for due tasks every interval while wake-ups do not flow (broker down, or no broker at all),
// and once at start to catch up on a backlog. When a poll fills every free slot it polls again as slots free up.

import type { Logger } from "../logger.js";
import { errorMessage } from "../error-text.js";

interface PollerOptions {
  intervalMs: number;
  logger: Logger;
  /** Whether periodic polls should run now (false while wake-ups flow). */
  active: () => boolean;
  /** Claims and starts up to the free slots' worth of due tasks; resolves true when it filled every free slot. */
  poll: () => Promise<boolean>;
}

export class Poller {
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private stopped = false;
  private full = false;
  private kicked = false;
  /** A slot freed while a poll was in flight: its `full` was not known yet, so the kick is replayed once it is. */
  private kickedDuringPoll = false;
  /** Set by catchUp(): polls go on as slots free, even while wake-ups flow, until one finds less than it could take. */
  private catchingUp = false;
  private failures = 0;

  constructor(private readonly options: PollerOptions) {}

  /** Polls once now (whatever `active` says), then every interval while active. */
  async start(): Promise<void> {
    await this.runPoll();
    this.schedule();
  }

  /**
   * Polls now, whatever `active` says, and again as slots free while polls fill every free slot: a listener (NOTIFY)
   * started or came back, and the wake-ups sent before are gone, so a backlog is drained by polling.
   */
  catchUp(): void {
    if (this.stopped) return;
    this.catchingUp = true;
    void this.runPoll();
  }

  /** A slot freed up: poll at once if the last poll found more work than it could take. */
  kick(): void {
    if (this.stopped) return;
    if (this.polling) {
      // The poll's own tasks can finish before it returns (a fast handler): remember, or this kick is lost and a
      // backlog waits for the next interval, or forever while wake-ups flow.
      this.kickedDuringPoll = true;
      return;
    }
    if (!this.full || this.kicked || !this.wanted()) return;
    this.kicked = true;
    setImmediate(() => {
      this.kicked = false;
      if (!this.stopped && this.full && this.wanted()) void this.runPoll();
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.polling) await this.polling;
  }

  private wanted(): boolean {
    return this.catchingUp || this.options.active();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), this.options.intervalMs);
  }

  /** One interval's turn: a poll when wanted, then the next turn, whatever the poll or `active` threw. */
  private async tick(): Promise<void> {
    this.timer = undefined;
    try {
      if (this.options.active()) await this.runPoll();
    } catch (error) {
      this.options.logger.warn("polling for due tasks failed; retrying every interval", { error: errorMessage(error) });
    } finally {
      this.schedule();
    }
  }

  private runPoll(): Promise<void> {
    this.polling ??= this.pollOnce().finally(() => {
      this.polling = undefined;
      if (this.kickedDuringPoll) {
        this.kickedDuringPoll = false;
        this.kick();
      }
    });
    return this.polling;
  }

  private async pollOnce(): Promise<void> {
    if (this.stopped) return;
    try {
      this.full = await this.options.poll();
      this.failures = 0;
      if (!this.full) this.catchingUp = false;
    } catch (error) {
      this.full = false;
      this.catchingUp = false;
      this.failures += 1;
      if (this.failures === 1 || this.failures % 10 === 0) {
        this.options.logger.warn("polling for due tasks failed; retrying every interval", { error: errorMessage(error), failures: this.failures });
      }
    }
  }
}
