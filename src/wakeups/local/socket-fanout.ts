// A publisher's end of the local sockets: every wake-up goes to every worker socket in the database's folder (each
// worker claims what it can; the others find the rows taken). Best effort and never in the app's way: writes are not
// waited for, a worker that is gone costs a failed connection and its socket file is removed, and a worker that reads
// too slowly has wake-ups dropped (it polls, and the cleaner re-sends). The folder's listing is refreshed when it changes.

import { watch, type FSWatcher } from "node:fs";
import { rmdir, unlink } from "node:fs/promises";
import { createConnection, type Socket } from "node:net";
import { peerSockets } from "./socket-directory.js";
import { laterLine, wakeupLine, type LaterOnSocket } from "./socket-line.js";

/** How often the folder is listed while it cannot be watched (no worker has made it yet). */
const RESCAN_MS = 100;

/** Bytes a connection may hold unwritten before wake-ups to it are dropped. */
const MAX_BUFFERED_BYTES = 1 << 20;

export class SocketFanout {
  private peers: string[] = [];
  private readonly connections = new Map<string, Socket>();
  private watcher: FSWatcher | undefined;
  private stale = true;
  private listedAt = 0;
  private closed = false;

  constructor(private readonly directory: string) {}

  /** True when a worker of another process listens on this database. */
  get hasPeers(): boolean {
    return this.currentPeers().length > 0;
  }

  /**
   * Writes the wake-up to every worker socket of another process. Undefined when there was none to write to; else
   * resolves true once one of the writes reached a listening worker, false when all of them failed. Never rejects.
   */
  send(queue: string, ids: readonly string[]): Promise<boolean> | undefined {
    if (this.closed || ids.length === 0) return undefined;
    return this.write(wakeupLine(queue, ids));
  }

  /** Writes wake-ups of tasks due later to every worker socket of another process (each keeps a timer). Best effort. */
  sendLater(queue: string, wakeups: readonly LaterOnSocket[]): void {
    if (this.closed || wakeups.length === 0) return;
    void this.write(laterLine(queue, wakeups));
  }

  private write(line: string): Promise<boolean> | undefined {
    const writes: Array<Promise<boolean>> = [];
    for (const path of this.currentPeers()) {
      const socket = this.connection(path);
      if (socket.writableLength >= MAX_BUFFERED_BYTES) continue;
      writes.push(new Promise((resolve) => socket.write(line, (error) => resolve(!error))));
    }
    if (writes.length === 0) return undefined;
    return new Promise((resolve) => {
      let left = writes.length;
      for (const write of writes) {
        void write.then((ok) => {
          if (ok) resolve(true);
          else if (--left === 0) resolve(false);
        });
      }
    });
  }

  close(): void {
    this.closed = true;
    this.watcher?.close();
    for (const socket of this.connections.values()) socket.destroy();
    this.connections.clear();
  }

  /**
   * The sockets of other processes' workers. Read again when the folder changed (watched once it exists); until a
   * worker has made the folder, at most every RESCAN_MS.
   */
  private currentPeers(): string[] {
    const now = Date.now();
    if (this.stale || (!this.watcher && now - this.listedAt >= RESCAN_MS)) {
      this.stale = false;
      this.listedAt = now;
      this.peers = peerSockets(this.directory);
      for (const path of this.connections.keys()) if (!this.peers.includes(path)) this.drop(path);
      if (!this.watcher && !this.closed) this.watch();
    }
    return this.peers;
  }

  private watch(): void {
    try {
      this.watcher = watch(this.directory, { persistent: false }, () => (this.stale = true));
      this.watcher.on("error", () => {
        this.watcher?.close();
        this.watcher = undefined; // the folder went: listed again every RESCAN_MS
      });
      this.stale = true; // a socket made before the watch began is seen at the next send
    } catch {
      this.watcher = undefined; // no folder yet
    }
  }

  private connection(path: string): Socket {
    const existing = this.connections.get(path);
    if (existing) return existing;
    const socket = createConnection(path);
    socket.unref();
    socket.on("error", (error: NodeJS.ErrnoException) => {
      this.drop(path);
      // Nobody listens there: a worker that was killed left its socket file behind.
      if (error.code === "ECONNREFUSED") {
        void unlink(path)
          .then(() => rmdir(this.directory)) // only when it held no other worker's socket
          .catch(() => {});
      }
      this.stale = true;
    });
    socket.on("close", () => {
      if (this.connections.get(path) === socket) this.connections.delete(path);
    });
    this.connections.set(path, socket);
    return socket;
  }

  private drop(path: string): void {
    this.connections.get(path)?.destroy();
    this.connections.delete(path);
  }
}
