// PgBouncer in transaction mode in front of the test server, for the tests that run through one: Debian's pgbouncer
// (1.18, which keeps no prepared statement across transactions), started on a free port with a config of its own,
// every database of the server behind it. One process per test file, shared by the file's databases.

import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { freePort } from "./free-port.js";
import { ServerProcess } from "./server-process.js";

export class PgBouncer {
  private constructor(
    private readonly running: ServerProcess,
    private readonly dir: string,
    readonly port: number,
  ) {}

  /**
   * Starts one in front of the server of `serverUrl`; resolves once it answers a query. `poolSize` server connections
   * per database (default 40): with 1, every client's transaction runs on the same server session, so what one client
   * leaves in that session (a prepared statement, say) meets every other.
   */
  static async start(serverUrl: string, poolSize = 40): Promise<PgBouncer> {
    const server = new URL(serverUrl);
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), "ptq-pgbouncer-"));
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, "users.txt"), `"${decodeURIComponent(server.username || "postgres")}" ""\n`);
    writeFileSync(
      join(dir, "pgbouncer.ini"),
      [
        "[databases]",
        `* = host=${server.hostname} port=${server.port || 5432}`,
        "[pgbouncer]",
        "listen_addr = 127.0.0.1",
        `listen_port = ${port}`,
        "unix_socket_dir =",
        "auth_type = trust",
        `auth_file = ${join(dir, "users.txt")}`,
        "pool_mode = transaction",
        "max_client_conn = 1000",
        `default_pool_size = ${poolSize}`,
        "server_reset_query =",
        // What pg and Prisma send at startup that PgBouncer would otherwise refuse.
        "ignore_startup_parameters = extra_float_digits",
        "",
      ].join("\n"),
    );
    // PgBouncer refuses to run as root: then it runs as the server's system user.
    const args = [join(dir, "pgbouncer.ini"), ...(process.getuid?.() === 0 ? ["-u", "postgres"] : [])];
    try {
      const running = await ServerProcess.start("pgbouncer", args, `pgbouncer to answer on port ${port}`, () => answers(port, server));
      return new PgBouncer(running, dir, port);
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** The URL of `directUrl`'s database through this PgBouncer, with `pgbouncer=true` as an app would write it. */
  url(directUrl: string): string {
    return bouncerUrl(directUrl, this.port);
  }

  async stop(): Promise<void> {
    await this.running.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function bouncerUrl(directUrl: string, port: number): string {
  const url = new URL(directUrl);
  url.port = String(port);
  url.searchParams.set("pgbouncer", "true");
  return url.toString();
}

/** True once a query through the PgBouncer on `port` reaches `server`. */
async function answers(port: number, server: URL): Promise<boolean> {
  const client = new pg.Client({ connectionString: bouncerUrl(server.toString(), port).replace(/[?&]pgbouncer=true/, "") });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}
