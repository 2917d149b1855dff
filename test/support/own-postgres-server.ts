// A PostgreSQL server of the test's own (initdb into a temporary folder, pg_ctl on a free port, fsync on), for tests
// that crash the database: the shared server is never stopped. Crash = `pg_ctl stop -m immediate`, as a power cut
// would leave the WAL: commits whose WAL was not yet flushed are gone after the restart.

import { execFile } from "node:child_process";
import { chmodSync, chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { freePort } from "./free-port.js";

const run = promisify(execFile);

/** Where Debian and Ubuntu install PostgreSQL's server programs; PTQ_PG_BIN overrides. */
const BIN = process.env.PTQ_PG_BIN ?? "/usr/lib/postgresql/15/bin";

/** Settings of the test server: durable commits by default, as in production; a small footprint. */
const SETTINGS = ["fsync=on", "synchronous_commit=on", "full_page_writes=on", "max_connections=60", "shared_buffers=32MB", "listen_addresses=127.0.0.1"];

export class OwnPostgresServer {
  /** The WAL writer stopped by stopWalWriter(), killed by the next crash(). */
  private stoppedWalWriter: number | undefined;

  private constructor(
    readonly folder: string,
    readonly port: number,
    private readonly asUser: string | undefined,
    private readonly settings: readonly string[],
  ) {}

  /** The superuser's URL of database `name` (default postgres). */
  url(name = "postgres"): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/${name}`;
  }

  /**
   * Makes a cluster in a temporary folder and starts it. `settings` are added server settings ("wal_writer_delay=1s").
   * Run as root, the server runs as the user `postgres` (PostgreSQL refuses to run as root).
   */
  static async start(settings: readonly string[] = []): Promise<OwnPostgresServer> {
    const folder = mkdtempSync(join(tmpdir(), "ptq-own-pg-"));
    const asUser = process.getuid?.() === 0 ? "postgres" : undefined;
    if (asUser) {
      const { stdout } = await run("id", ["-u", asUser]);
      const { stdout: group } = await run("id", ["-g", asUser]);
      chownSync(folder, Number(stdout.trim()), Number(group.trim()));
    }
    chmodSync(folder, 0o700);
    const server = new OwnPostgresServer(folder, await freePort(), asUser, [...SETTINGS, ...settings]);
    try {
      await server.exec("initdb", ["-D", server.dataDir, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"]);
      await server.restart();
    } catch (error) {
      rmSync(folder, { recursive: true, force: true });
      throw error;
    }
    return server;
  }

  get dataDir(): string {
    return join(this.folder, "data");
  }

  /** Starts the server (after start() or crash()) and waits until it accepts connections, crash recovery done. */
  async restart(): Promise<void> {
    const options = [`-p ${this.port}`, `-k ${this.folder}`, ...this.settings.map((setting) => `-c ${setting}`)].join(" ");
    await this.exec("pg_ctl", ["start", "-w", "-t", "120", "-D", this.dataDir, "-l", join(this.folder, "server.log"), "-o", options]);
  }

  /**
   * Freezes the WAL writer (SIGSTOP) until the next crash, so that the WAL of asynchronous commits leaves the server's
   * memory only when a durable commit (or a full WAL buffer) writes it. An immediate stop then loses what a power cut
   * or an OS crash loses on a live server: the WAL since the last flush (PostgreSQL's WAL writer flushes every
   * wal_writer_delay; what it has write()n but not flushed survives an immediate stop, not a power cut).
   */
  async stopWalWriter(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url() });
    await client.connect();
    try {
      const { rows } = await client.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE backend_type = 'walwriter'");
      if (rows.length !== 1) throw new Error(`expected one WAL writer, found ${rows.length}`);
      this.stoppedWalWriter = rows[0]!.pid;
      process.kill(this.stoppedWalWriter, "SIGSTOP");
    } finally {
      await client.end();
    }
  }

  /**
   * Stops the server the way a crash does: `pg_ctl stop -m immediate` (SIGQUIT), no checkpoint, no flush of the WAL
   * buffers; a WAL writer frozen by stopWalWriter() is killed first. Resolves once the server is gone.
   */
  async crash(): Promise<void> {
    if (this.stoppedWalWriter !== undefined) {
      process.kill(this.stoppedWalWriter, "SIGKILL");
      this.stoppedWalWriter = undefined;
    }
    await this.exec("pg_ctl", ["stop", "-m", "immediate", "-w", "-D", this.dataDir]);
  }

  /** Stops the server fast and removes its folder. */
  async close(): Promise<void> {
    await this.exec("pg_ctl", ["stop", "-m", "fast", "-w", "-D", this.dataDir]).catch(() => {});
    rmSync(this.folder, { recursive: true, force: true });
  }

  private async exec(program: string, args: string[]): Promise<void> {
    const file = join(BIN, program);
    if (this.asUser) await run("runuser", ["-u", this.asUser, "--", file, ...args]);
    else await run(file, args);
  }
}
