// A TCP proxy the test owns, in front of RabbitMQ: cut() drops every connection and refuses new ones,
// restore() accepts again on the same port. Fault injection without touching the shared broker.

import net from "node:net";

export class TcpProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  private constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  static async start(target: string): Promise<TcpProxy> {
    const url = new URL(target);
    const proxy = new TcpProxy(url.hostname, Number(url.port || 5672));
    await proxy.listen(0);
    return proxy;
  }

  /** `target` with its host and port replaced by the proxy's. */
  urlFor(target: string): string {
    const url = new URL(target);
    url.hostname = "127.0.0.1";
    url.port = String(this.port);
    return url.toString();
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }

  async restore(): Promise<void> {
    await this.listen(this.port);
  }

  async close(): Promise<void> {
    await this.cut();
  }

  private listen(port: number): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.targetPort, this.targetHost);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on("error", () => {});
        socket.on("close", () => {
          this.sockets.delete(socket);
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        this.port = (server.address() as net.AddressInfo).port;
        resolve();
      });
    });
  }
}
