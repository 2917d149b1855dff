// One RabbitMQ connection that reconnects until closed, to one node or to the first of several (a cluster) that answers:
// with backoff and jitter while every node is away, slowly (with one error naming the fix) when they refuse.

import { EventEmitter } from "node:events";
import type { ChannelModel } from "amqplib";
import type { Logger } from "../../logger.js";
import { amqpUrls, redactUrls } from "../../amqp-url.js";
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
  /**
   * How long one node may take to accept the connection and finish the AMQP handshake before the next is tried.
   * Default 5 s: a node that accepts TCP but does not answer (frozen, overloaded) does not hold up the others.
   */
  nodeTimeoutMs?: number;
}

/** One connect attempt that failed: the node it was made to and what it threw. */
interface NodeFailure {
  url: string;
  error: Error;
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
  /** The nodes as given (comma-separated in the option), and as connected to (with the default heartbeat). */
  private readonly givenUrls: string[];
  private readonly urls: string[];
  /** The node the next attempt starts with: after a loss, the one after the node that was lost. */
  private nextNode = 0;
  private status: BrokerState;
  /** The fixes already logged as errors, so that a lasting failure is logged once, not at every attempt. */
  private loggedFixes = new Set<string>();

  /** `url`: one AMQP URL, or several separated by commas (the nodes of one cluster). */
  constructor(
    url: string,
    private readonly options: BrokerConnectionOptions,
  ) {
    super();
    this.givenUrls = amqpUrls(url);
    if (this.givenUrls.length === 0) this.givenUrls = [url];
    this.urls = this.givenUrls.map((node) => withHeartbeat(node, options.heartbeatSeconds ?? 5));
    this.status = { transport: "rabbitmq", state: "connecting", url: redactUrls(this.givenUrls), since: new Date() };
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

  /** Tries each node once, starting with `nextNode`; schedules the next round when none accepted. */
  private async connect(): Promise<void> {
    const failures: NodeFailure[] = [];
    try {
      for (let i = 0; i < this.urls.length && !this.closed; i += 1) {
        const node = (this.nextNode + i) % this.urls.length;
        try {
          const model = await this.open(node);
          if (model) this.connected(model, node);
          return;
        } catch (error) {
          failures.push({ url: this.givenUrls[node]!, error: error as Error });
        }
      }
      if (failures.length > 0) this.schedule(failures);
    } finally {
      this.connecting = undefined;
    }
  }

  /** Connects to node `node`; undefined when closed meanwhile. */
  private async open(node: number): Promise<ChannelModel | undefined> {
    // noDelay: amqplib leaves Nagle's algorithm on, which holds small frames (a wake-up, an ack) for the peer's delayed ACK.
    const model = await this.amqp.connect(this.urls[node]!, { noDelay: true, timeout: this.options.nodeTimeoutMs ?? 5000 });
    if (!this.closed) return model;
    await closeConnection(model, 2000);
    return undefined;
  }

  private connected(model: ChannelModel, node: number): void {
    this.attempt = 0;
    this.loggedFixes.clear();
    this.nextNode = node;
    this.model = model;
    const url = redactUrl(this.givenUrls[node]!);
    this.status = { transport: "rabbitmq", state: "connected", url, since: new Date() };
    model.on("error", () => {}); // 'close' follows and carries the reconnect
    model.on("close", (error?: Error) => this.lost(model, node, error ?? new WakeupBrokerError("the broker connection closed")));
    this.options.logger.info("broker connected", this.urls.length > 1 ? { url } : {});
    this.emit("connected", model);
  }

  private lost(model: ChannelModel, node: number, error: Error): void {
    if (this.model !== model) return;
    this.model = undefined;
    if (this.closed) return;
    this.options.logger.warn("broker connection lost", this.urls.length > 1 ? { error: error.message, url: redactUrl(this.givenUrls[node]!) } : { error: error.message });
    this.status = { transport: "rabbitmq", state: "connecting", url: redactUrls(this.givenUrls), since: new Date() };
    this.emit("disconnected", error);
    if (this.urls.length === 1) {
      this.schedule([{ url: this.givenUrls[0]!, error }]);
      return;
    }
    // Another node of the cluster is likely up: try the others at once, the lost node last.
    this.nextNode = (node + 1) % this.urls.length;
    this.connecting = this.connect();
  }

  /**
   * After a round in which no node accepted: waits long when every node refused (credentials, virtual host), else
   * backs off. A node that refuses while another is away does not stop the attempts: its fix is logged once.
   */
  private schedule(failures: NodeFailure[]): void {
    if (this.closed) return;
    this.attempt += 1;
    const classified = failures.map(({ url, error }) => classifyBrokerError(error, url));
    const failure = classified.find((one) => one.state !== "refused") ?? classified[0]!;
    const since = this.status.state === failure.state && this.status.fix === failure.fix ? this.status.since : new Date();
    this.status = { transport: "rabbitmq", state: failure.state, url: redactUrls(this.givenUrls), error: failure.error, fix: failure.fix, since };
    // Refusals wait long; an unknown host (lasting too, but in a container network it resolves once the broker runs)
    // keeps the backoff of a broker that is away.
    const base =
      failure.state === "refused"
        ? (this.options.lastingRetryDelayMs ?? 30_000)
        : Math.min(this.options.maxDelayMs ?? 10_000, (this.options.minDelayMs ?? 100) * 2 ** (this.attempt - 1));
    const delay = Math.round(base * (0.8 + Math.random() * 0.4));
    for (const one of classified) {
      if (!one.lasting || !one.fix || this.loggedFixes.has(one.fix)) continue;
      this.loggedFixes.add(one.fix);
      const retrying = one.state === "refused" && failure.state === "refused" ? `every ${base >= 1000 ? `${Math.round(base / 1000)} s` : `${base} ms`}` : "with backoff";
      this.options.logger.error(
        `broker connection failed and retrying will not fix it: ${one.fix}. Until then nothing is published` +
          (this.urls.length > 1 ? " through that node" : "") +
          `: workers poll the database and the cleaner sends due tasks, so tasks run late. Retrying ${retrying} without logging this again`,
        { url: this.status.url, error: one.error },
      );
    }
    if (!failure.lasting && (this.attempt === 1 || this.attempt % 10 === 0)) {
      this.options.logger.warn("broker unreachable, retrying", { attempt: this.attempt, delayMs: delay, error: failures.map((f) => f.error.message).join("; ") });
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
