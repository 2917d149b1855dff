// A TCP proxy that can simulate a network partition the server does not see: traffic stops both ways, and when the
// client gives up on its socket the server's side stays open, as it would behind a dead link.

import { connect, createServer, type Server, type Socket } from "node:net";

export class PartitionProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private partitioned = false;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<this> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", () => resolve()));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  route(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = "127.0.0.1";
    parsed.port = String(this.port);
    return parsed.toString();
  }

  /** From now on nothing passes, and closing a client socket no longer closes its server socket. */
  partition(): void {
    this.partitioned = true;
  }

  /** Closes every socket, both sides, and stops listening. */
  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private accept(client: Socket): void {
    const upstream = connect(this.target);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on("error", () => {});
      socket.on("close", () => this.sockets.delete(socket));
    }
    if (this.partitioned) return; // a connection made during the partition goes nowhere
    client.on("data", (chunk) => void (this.partitioned || upstream.write(chunk)));
    upstream.on("data", (chunk) => void (this.partitioned || client.write(chunk)));
    client.on("close", () => this.partitioned || upstream.destroy());
    upstream.on("close", () => this.partitioned || client.destroy());
  }
}
