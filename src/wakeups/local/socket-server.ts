// A worker's end of the local sockets: it listens on a socket of its own in the database's folder and hands each
// wake-up line to the worker (a task due later to its timers). The socket file goes when the worker stops; one left by a killed worker is removed by
// the first publisher that finds nobody answering on it.

import { randomBytes } from "node:crypto";
import { rmdir, unlink } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { ensureSocketDirectory, ownSockets } from "./socket-directory.js";
import { parseWakeupLine, type LaterOnSocket } from "./socket-line.js";

/** Longest line kept from a connection while it waits for its newline: a wake-up of 10,000 ids fits. */
const MAX_LINE_CHARS = 400_000;

export class SocketServer {
  private server: Server | undefined;
  private readonly connections = new Set<Socket>();
  readonly path: string;

  constructor(
    private readonly directory: string,
    private readonly deliver: (ids: string[], queue: string) => void,
    private readonly deliverLater: (wakeups: LaterOnSocket[], queue: string) => void = () => {},
  ) {
    this.path = join(directory, `${process.pid}-${randomBytes(6).toString("hex")}.sock`);
  }

  /** Listens; resolves false (and listens nowhere) when the folder or the socket cannot be made. */
  async start(): Promise<boolean> {
    if (this.server) return true;
    // Twice: another worker may remove the folder (its last socket gone) between our mkdir and listen.
    for (let attempt = 0; attempt < 2; attempt++) {
      if (!ensureSocketDirectory(this.directory)) return false;
      const server = createServer((socket) => this.accept(socket));
      const listening = await new Promise<boolean>((resolve) => {
        server.once("error", () => resolve(false));
        server.listen(this.path, () => resolve(true));
      });
      if (listening) {
        server.on("error", () => {});
        this.server = server;
        ownSockets().add(this.path);
        return true;
      }
      server.close();
    }
    return false;
  }

  /** Stops listening, drops the connections and removes the socket file. */
  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    ownSockets().delete(this.path);
    for (const socket of this.connections) socket.destroy();
    this.connections.clear();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await unlink(this.path).catch(() => {});
    await rmdir(this.directory).catch(() => {}); // only when no other worker's socket is left in it
  }

  private accept(socket: Socket): void {
    this.connections.add(socket);
    socket.setEncoding("utf8");
    let pending = "";
    socket.on("data", (chunk: string) => {
      pending += chunk;
      let end = pending.indexOf("\n");
      while (end >= 0) {
        const wakeup = parseWakeupLine(pending.slice(0, end));
        if (wakeup?.later) this.deliverLater(wakeup.later, wakeup.queue);
        else if (wakeup) this.deliver(wakeup.ids, wakeup.queue);
        pending = pending.slice(end + 1);
        end = pending.indexOf("\n");
      }
      if (pending.length > MAX_LINE_CHARS) socket.destroy(); // not a publisher of ours
    });
    socket.on("error", () => {});
    socket.on("close", () => this.connections.delete(socket));
  }
}
