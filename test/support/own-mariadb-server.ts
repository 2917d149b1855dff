// A MariaDB server of the test's own (mariadb-install-db into a temporary folder, mariadbd on a free port and a
// socket of its own, every commit flushed: innodb_flush_log_at_trx_commit = 1), for tests that crash the database:
// the shared server is never stopped. Crash = SIGKILL of mariadbd.

import { execFile, spawn, type ChildProcess } from "node:child_process";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import * as mariadb from "mariadb";
import { freePort } from "./free-port.js";

const run = promisify(execFile);

/** Where Debian installs the server; PTQ_MARIADB_BIN overrides the folder of both programs. */
const SERVER = process.env.PTQ_MARIADB_BIN ? join(process.env.PTQ_MARIADB_BIN, "mariadbd") : "/usr/sbin/mariadbd";
const INSTALL = process.env.PTQ_MARIADB_BIN ? join(process.env.PTQ_MARIADB_BIN, "mariadb-install-db") : "/usr/bin/mariadb-install-db";

export class OwnMariadbServer {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();

  private constructor(
    readonly folder: string,
    readonly port: number,
    private readonly asUser: string | undefined,
  ) {}

  /** The root user's URL (no password) of database `name` (default mysql). */
  url(name = "mysql"): string {
    return `mysql://root@127.0.0.1:${this.port}/${name}`;
  }

  /** Installs the system tables into a temporary folder and starts the server. As root, it runs as the user `mysql`. */
  static async start(): Promise<OwnMariadbServer> {
    const folder = mkdtempSync(join(tmpdir(), "ptq-own-mariadb-"));
    const asUser = process.getuid?.() === 0 ? "mysql" : undefined;
    if (asUser) {
      const { stdout: uid } = await run("id", ["-u", asUser]);
      const { stdout: gid } = await run("id", ["-g", asUser]);
      chownSync(folder, Number(uid.trim()), Number(gid.trim()));
    }
    const server = new OwnMariadbServer(folder, await freePort(), asUser);
    try {
      const user = asUser ? [`--user=${asUser}`] : [];
      await run(INSTALL, ["--no-defaults", `--datadir=${server.dataDir}`, "--auth-root-authentication-method=normal", "--skip-test-db", ...user]);
      await server.restart();
    } catch (error) {
      await server.close();
      throw error;
    }
    return server;
  }

  get dataDir(): string {
    return join(this.folder, "data");
  }

  /** Starts mariadbd (after start() or crash()) and waits until it accepts connections, crash recovery done. */
  async restart(): Promise<void> {
    const args = [
      "--no-defaults",
      `--datadir=${this.dataDir}`,
      `--port=${this.port}`,
      `--socket=${join(this.folder, "mariadbd.sock")}`,
      `--pid-file=${join(this.folder, "mariadbd.pid")}`,
      `--log-error=${join(this.folder, "error.log")}`,
      "--bind-address=127.0.0.1",
      "--innodb-flush-log-at-trx-commit=1",
      "--innodb-buffer-pool-size=64M",
      "--max-connections=100",
      ...(this.asUser ? [`--user=${this.asUser}`] : []),
    ];
    const child = spawn(SERVER, args, { stdio: "ignore" });
    this.child = child;
    this.exited = new Promise((resolve) => child.once("exit", () => resolve()));
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`mariadbd exited with ${child.exitCode}; see ${join(this.folder, "error.log")}`);
      try {
        const connection = await mariadb.createConnection({ host: "127.0.0.1", port: this.port, user: "root", connectTimeout: 1000 });
        await connection.end();
        return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  /** Kills mariadbd with SIGKILL, as a crash would; resolves once it is gone. */
  async crash(): Promise<void> {
    this.child?.kill("SIGKILL");
    await this.exited;
    this.child = undefined;
  }

  /** Stops the server (SIGTERM, then SIGKILL after 20 s) and removes its folder. */
  async close(): Promise<void> {
    if (this.child) {
      this.child.kill("SIGTERM");
      const timer = setTimeout(() => this.child?.kill("SIGKILL"), 20_000);
      await this.exited;
      clearTimeout(timer);
      this.child = undefined;
    }
    rmSync(this.folder, { recursive: true, force: true });
  }
}
