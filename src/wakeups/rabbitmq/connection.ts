// One RabbitMQ connection that reconnects until closed: with exponential backoff and jitter while the broker is away,
// slowly (and with one error naming the fix) when it refuses. Users react to 'connected' and 'disconnected'.

import { EventEmitter } from "node:events";
import type { ChannelModel } from "amqplib";
import type { Logger } from "../../logger.js";
import { redactUrl } from "../../redact-url.js";
import type { BrokerState } from "../transport.js";
import { WakeupBrokerError } from "../wakeup-errors.js";
import { amqpClient } from "./amqp-client.js";
import { classifyBrokerError } from "./broker-errors.js";

interface BrokerConnectionOptions {
  logger: Logger;
  /** First reconnect delay. Default 100 ms. */
  minDelayMs?: number;
  /** Longest reconnect delay. Default 10 s. */
  maxDelayMs?: number;
  /**
   * Pause between attempts while the broker refuses (credentials, missing virtual host, TLS certificate) or the URL
   * cannot be used. Default 30 s: a fix on the broker side (user or vhost created) is picked up within that, without
   * flooding the broker's log with refused logins; the app's process keeps running and tasks run by polling meanwhile.
   */
  lastingRetryDelayMs?: number;
  /** AMQP heartbeat in seconds, used when the URL does not set one; detects a silent broker. Default 5. */
  heartbeatSeconds?: number;
}

/**
 * Emits 'connected' (model) after every successful (re)connect, 'disconnected' (error) when it drops, and 'refused'
 * (BrokerFailure) after an attempt the broker refused.
 * `model` is the live connection or undefined while down.
 */
export class BrokerConnection extends EventEmitter {
  model: ChannelModel | undefined;
  /** The client, loaded before anything starts: a missing amqplib fails where the transport is made. */
  private readonly amqp = amqpClient();
  private closed = false;
  private attempt = 0;
  private timer: NodeJS.Timeout | undefined;
  private connecting: Promise<void> | undefined;
  private readonly url: string;
  private readonly givenUrl: string;
  private status: BrokerState;
  /** The fix last logged as an error, so that a lasting failure is logged once, not at every attempt. */
  private loggedFix: string | undefined;

  constructor(
    url: string,
    private readonly options: BrokerConnectionOptions,
  ) {
    super();
    this.url = withHeartbeat(url, options.heartbeatSeconds ?? 5);
    this.givenUrl = url;
    this.status = { transport: "rabbitmq", state: "connecting", url: redactUrl(url), since: new Date() };
  }

  /** The broker's state now (a copy). */
  get state(): BrokerState {
    return { ...this.status };
  }

  /** True while a reconnect is scheduled: the last attempt failed, so callers should not wait. */
  get down(): boolean {
    return this.timer !== undefined;
  }

  /** Starts connecting in the background (idempotent). */
  start(): void {
    if (!this.model && !this.connecting && !this.timer && !this.closed) this.connecting = this.connect();
  }

  /** Resolves with the live connection, or undefined when none comes within `timeoutMs`. */
  async ready(timeoutMs: number): Promise<ChannelModel | undefined> {
    if (this.model) return this.model;
    this.start();
    return new Promise((resolve) => {
      const done = (model: ChannelModel | undefined) => {
        clearTimeout(timer);
        this.off("connected", onConnected);
        this.off("refused", onRefused);
        resolve(model);
      };
      const onConnected = (model: ChannelModel) => done(model);
      const onRefused = () => done(undefined); // waiting longer will not help
      const timer = setTimeout(() => done(this.model), timeoutMs);
      this.on("connected", onConnected);
      this.on("refused", onRefused);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.connecting;
    const model = this.model;
    this.model = undefined;
    if (model) await closeConnection(model, 2000);
  }

  private async connect(): Promise<void> {
    try {
      // noDelay: amqplib leaves Nagle's algorithm on, which holds small frames (a wake-up, an ack) for the peer's delayed ACK.
      const model = await this.amqp.connect(this.url, { noDelay: true });
      if (this.closed) {
        await closeConnection(model, 2000);
        return;
      }
      this.attempt = 0;
      this.loggedFix = undefined;
      this.model = model;
      this.status = { transport: "rabbitmq", state: "connected", url: this.status.url, since: new Date() };
      model.on("error", () => {}); // 'close' follows and carries the reconnect
      model.on("close", (error?: Error) => this.lost(model, error ?? new WakeupBrokerError("the broker connection closed")));
      this.options.logger.info("broker connected", {});
      this.emit("connected", model);
    } catch (error) {
      this.schedule(error as Error);
    } finally {
      this.connecting = undefined;
    }
  }

  private lost(model: ChannelModel, error: Error): void {
    if (this.model !== model) return;
    this.model = undefined;
    if (this.closed) return;
    this.options.logger.warn("broker connection lost", { error: error.message });
    this.emit("disconnected", error);
    this.schedule(error);
  }

  private schedule(error: Error): void {
    if (this.closed) return;
    this.attempt += 1;
    const failure = classifyBrokerError(error, this.givenUrl);
    const since = this.status.state === failure.state && this.status.fix === failure.fix ? this.status.since : new Date();
    this.status = { transport: "rabbitmq", state: failure.state, url: this.status.url, error: failure.error, fix: failure.fix, since };
    // Refusals wait long; an unknown host (lasting too, but in a container network it resolves once the broker runs)
    // keeps the backoff of a broker that is away.
    const base =
      failure.state === "refused"
        ? (this.options.lastingRetryDelayMs ?? 30_000)
        : Math.min(this.options.maxDelayMs ?? 10_000, (this.options.minDelayMs ?? 100) * 2 ** (this.attempt - 1));
    const delay = Math.round(base * (0.8 + Math.random() * 0.4));
    if (failure.lasting) {
      if (failure.fix !== this.loggedFix) {
        this.loggedFix = failure.fix;
        this.options.logger.error(
          `broker connection failed and retrying will not fix it: ${failure.fix}. Until then nothing is published: workers ` +
            "poll the database and the cleaner sends due tasks, so tasks run late. Retrying " +
            (failure.state === "refused" ? `every ${base >= 1000 ? `${Math.round(base / 1000)} s` : `${base} ms`}` : "with backoff") +
            " without logging this again",
          { url: this.status.url, error: failure.error },
        );
      }
    } else if (this.attempt === 1 || this.attempt % 10 === 0) {
      this.options.logger.warn("broker unreachable, retrying", { attempt: this.attempt, delayMs: delay, error: error.message });
    }
    if (failure.state === "refused") this.emit("refused", failure);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.start();
    }, delay);
  }
}

function withHeartbeat(url: string, seconds: number): string {
  try {
    const parsed = new URL(url);
    if (!parsed.searchParams.has("heartbeat")) parsed.searchParams.set("heartbeat", String(seconds));
    return parsed.toString();
  } catch {
    return url;
  }
}

/**
 * Closes a broker connection, waiting at most `timeoutMs` for the broker's goodbye: amqplib's close() never settles
 * when the socket dies while it waits (seen in the chaos soak), so after that the socket is simply destroyed.
 */
export async function closeConnection(model: ChannelModel, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), timeoutMs)));
  const closed = model.close().then(
    () => false,
    () => false,
  );
  if (await Promise.race([closed, gaveUp])) {
    (model as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  }
  clearTimeout(timer);
}
