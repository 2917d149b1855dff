// A TCP proxy the tests own, for fault injection between our processes and PostgreSQL or RabbitMQ: cut (reset every
// connection), blackhole (drop every byte), refuse (reset new connections), partition (a dead link), restore, and
// severAfter (let one statement reach the server, then lose the connection before its answer comes back).

import { createServer, connect, type Server, type Socket } from "node:net";

export type ProxyMode = "pass" | "blackhole" | "refuse" | "partition";

export class TcpProxy {
  private server: Server | undefined;
  private readonly pairs = new Set<{ client: Socket; upstream: Socket }>();
  mode: ProxyMode = "pass";
  port = 0;
  /** Connections accepted so far, and how many were cut. */
  readonly stats = { accepted: 0, cut: 0 };
  private sever: { pattern: Buffer; severed: () => void } | undefined;

  /** `listenHost`: the local address the proxy listens on and route() points at. */
  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
    private readonly listenHost = "127.0.0.1",
  ) {}

  /** Starts listening on its address (a free port unless `port` is given). */
  async start(port = 0): Promise<this> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      this.server!.once("error", reject);
      this.server!.listen(port, this.listenHost, () => resolve());
    });
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  /** Resets every open connection; new ones are accepted as the mode says. */
  cut(): void {
    for (const pair of this.pairs) {
      pair.client.resetAndDestroy();
      pair.upstream.destroy();
      this.stats.cut++;
    }
    this.pairs.clear();
  }

  /** Keeps connections open but drops all traffic both ways, and accepts new connections that go nowhere. */
  blackhole(): void {
    this.mode = "blackhole";
  }

  /** New connections are refused (reset at once); existing ones are cut. */
  refuse(): void {
    this.mode = "refuse";
    this.cut();
  }

  /**
   * A network partition the server does not see: nothing passes either way, and a client giving up on its socket no
   * longer closes the server's side, as behind a dead link. stop() closes everything.
   */
  partition(): void {
    this.mode = "partition";
  }

  /** Back to passing traffic. Connections held during a blackhole are cut, so clients reconnect cleanly. */
  restore(): void {
    if (this.mode === "blackhole" || this.mode === "partition") this.cut();
    this.mode = "pass";
  }

  /**
   * The next client bytes that contain `pattern` (e.g. a COMMIT) are passed to the server, and then that connection is
   * lost: the client's side is reset at once, and the server's answer is dropped and its side closed once it comes.
   * Resolves when the answer was dropped: the server has run the statement and the client never heard of it.
   */
  severAfter(pattern: string): Promise<void> {
    return new Promise((severed) => (this.sever = { pattern: Buffer.from(pattern), severed }));
  }

  /** URL of `url` rewritten to go through this proxy. */
  route(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = this.listenHost;
    parsed.port = String(this.port);
    return parsed.toString();
  }

  async stop(): Promise<void> {
    this.mode = "pass";
    this.cut();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private accept(client: Socket): void {
    this.stats.accepted++;
    client.on("error", () => {});
    if (this.mode === "refuse") {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect({ host: this.targetHost, port: this.targetPort });
    upstream.on("error", () => client.destroy());
    const pair = { client, upstream };
    this.pairs.add(pair);
    let severing = false;
    const forget = () => {
      if (this.mode === "partition" || severing) return; // the far side never hears of it (or only once it answered)
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("close", forget);
    upstream.on("close", forget);
    client.on("data", (chunk: Buffer) => {
      if (this.mode !== "pass") return;
      upstream.write(chunk);
      const sever = this.sever;
      if (!sever || !chunk.includes(sever.pattern)) return;
      this.sever = undefined;
      severing = true;
      this.pairs.delete(pair);
      this.stats.cut++;
      client.resetAndDestroy();
      upstream.removeAllListeners("data");
      upstream.once("data", () => (upstream.destroy(), sever.severed()));
    });
    upstream.on("data", (chunk) => {
      if (this.mode === "pass") client.write(chunk);
    });
  }
}
