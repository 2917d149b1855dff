// A scheduler for the serverless mode, as Vercel Cron or EventBridge would be: calls GET /api/tasks/cron with the
// bearer secret every `everyMs`, one call at a time, and keeps what each call answered.

export interface CronCall {
  at: number;
  status: number | "unreachable";
  summary?: { ran: number; succeeded: number; failed: number; ended: string; sweep: { fired: number } | null; durationMs: number };
}

export class CronPinger {
  readonly calls: CronCall[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;

  constructor(
    private readonly url: string,
    private readonly secret: string,
    private readonly everyMs = 2_000,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.tick();
  }

  /** Stops pinging; resolves once a call in flight has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Tasks the calls ran so far. */
  ran(): number {
    return this.calls.reduce((sum, call) => sum + (call.summary?.ran ?? 0), 0);
  }

  /** Schedule slots the calls' sweeps fired so far. */
  fired(): number {
    return this.calls.reduce((sum, call) => sum + (call.summary?.sweep?.fired ?? 0), 0);
  }

  private tick(): void {
    if (this.stopped) return;
    this.running = this.call().finally(() => {
      if (!this.stopped) this.timer = setTimeout(() => this.tick(), this.everyMs);
    });
  }

  private async call(): Promise<void> {
    const at = Date.now();
    try {
      const response = await fetch(`${this.url}/api/tasks/cron`, { headers: { authorization: `Bearer ${this.secret}` } });
      const body = (await response.json().catch(() => undefined)) as CronCall["summary"];
      this.calls.push({ at, status: response.status, summary: response.ok ? body : undefined });
    } catch {
      this.calls.push({ at, status: "unreachable" }); // the server is down (killed, restarting): the next call tries again
    }
  }
}
