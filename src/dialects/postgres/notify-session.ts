// The worker's LISTEN session on PostgreSQL: a pg Client of its own (a pooled connection cannot hold a LISTEN), which
// pings the server, and reconnects with backoff when the connection is cut (a restart, pg_terminate_backend, a partition).

import type pg from "pg";
import { errorMessage } from "../../error-text.js";
import type { Logger } from "../../logger.js";
import type { NotificationHandlers, NotificationSession } from "../../store/notifications.js";
import { redactUrl } from "../../redact-url.js";
import { pgDriver } from "./driver.js";
import { CLOCK_SQL, listenSql, parseWakeupPayload } from "./sql/notify-wakeups.js";

/** First pause before reconnecting, in ms; it doubles up to maxReconnectDelayMs. */
const FIRST_RECONNECT_DELAY_MS = 100;
/** How often the session is pinged, so a half-open connection is noticed; and how long a ping or connect may take. */
const PING_EVERY_MS = 15_000;
const ANSWER_TIMEOUT_MS = 5_000;

interface PgNotifySessionOptions {
  url: string;
  channel: string;
  handlers: NotificationHandlers;
  logger: Logger;
  /** Default 10 s. */
  maxReconnectDelayMs?: number;
}

export class PgNotifySession implements NotificationSession {
  /** The driver, loaded before anything starts: a missing pg package fails where the session is opened. */
  private readonly Client = pgDriver().Client;
  private client: pg.Client | undefined;
  private ready = false;
  private closed = false;
  private failures = 0;
  private retry: NodeJS.Timeout | undefined;
  private ping: NodeJS.Timeout | undefined;
  private connecting: Promise<void> | undefined;
  /** The database's clock minus this process's performance.now(), in ms, read on connect and at every ping. */
  private clockOffsetMs: number | undefined;

  constructor(private readonly options: PgNotifySessionOptions) {
    this.connecting = this.connect();
  }

  get listening(): boolean {
    return this.ready;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    clearTimeout(this.ping);
    await this.connecting;
    this.ready = false;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    const { url, channel, handlers, logger } = this.options;
    const client = new this.Client({
      connectionString: url,
      application_name: "task-runner listener",
      keepAlive: true,
      connectionTimeoutMillis: ANSWER_TIMEOUT_MS,
      query_timeout: ANSWER_TIMEOUT_MS,
    });
    this.client = client;
    client.on("error", () => {}); // 'end' follows
    client.on("notification", (message) => {
      const wakeup = message.channel === channel && message.payload ? parseWakeupPayload(message.payload) : undefined;
      if (!wakeup) return;
      const { queue, ids, runAtMs } = wakeup;
      if (!runAtMs) return handlers.wakeup(queue, ids);
      // The time left, on the database's clock as this session last read it (not read yet: due now, the claim tells).
      const dbNow = this.clockOffsetMs === undefined ? Number.POSITIVE_INFINITY : performance.now() + this.clockOffsetMs;
      handlers.later?.(
        queue,
        ids.map((id, i) => ({ id, dueInMs: Math.max(0, runAtMs[i]! - dbNow) })),
      );
    });
    client.on("end", () => this.lost(client, new Error("the listening connection ended")));
    try {
      await client.connect();
      await client.query(listenSql(channel));
      await this.readClock(client);
    } catch (error) {
      this.lost(client, error as Error);
      return;
    } finally {
      this.connecting = undefined;
    }
    if (this.closed || this.client !== client) return;
    if (this.failures > 0) logger.info("listening for wake-ups again", { channel });
    this.failures = 0;
    this.ready = true;
    this.schedulePing(client);
    handlers.listening();
  }

  /** Reads the database's clock against this process's, halfway through the round trip. */
  private async readClock(client: pg.Client): Promise<void> {
    const sent = performance.now();
    const { rows } = await client.query<{ now: number }>(CLOCK_SQL);
    this.clockOffsetMs = rows[0]!.now - (sent + performance.now()) / 2;
  }

  private schedulePing(client: pg.Client): void {
    this.ping = setTimeout(() => {
      this.readClock(client).then(
        () => this.client === client && !this.closed && this.schedulePing(client),
        (error: Error) => {
          this.lost(client, error);
          client.end().catch(() => {});
        },
      );
    }, PING_EVERY_MS);
  }

  /** The session of `client` is gone: report it once, and reconnect after a growing pause. */
  private lost(client: pg.Client, error: Error): void {
    if (this.closed || this.client !== client) return;
    this.client = undefined;
    const wasListening = this.ready;
    this.ready = false;
    clearTimeout(this.ping);
    client.end().catch(() => {});
    this.failures += 1;
    const delay = Math.min(this.options.maxReconnectDelayMs ?? 10_000, FIRST_RECONNECT_DELAY_MS * 2 ** (this.failures - 1));
    if (wasListening || this.failures === 1 || this.failures % 10 === 0) {
      this.options.logger.warn("lost the wake-up listening connection; workers poll until it is back", {
        url: redactUrl(this.options.url),
        error: errorMessage(error),
        retryInMs: delay,
      });
    }
    if (wasListening) this.options.handlers.lost(error);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (!this.closed) this.connecting = this.connect();
    }, delay);
  }
}
