// The soak's database, per dialect: how its processes reach it (a server, PostgreSQL or MySQL/MariaDB, through the
// test's TCP proxy; a SQLite file directly), which database faults it injects (cut and stall the connections of a
// server; hold a SQLite file's write lock past the busy timeout), its own table, and the reads the checker makes through
// the queue's store.

import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { openStore, type Store } from "../../src/index.js";
import { mysqlDatabaseUrl } from "../support/mysql-database.js";
import { PgBouncer } from "../support/pgbouncer.js";
import { TcpProxy } from "../support/tcp-proxy.js";
import type { SeededRandom } from "./seeded-random.js";
import { createSoakGuard, SOAK_BUSY_MS, soakPrisma, type SoakPrisma } from "./soak-prisma.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

export type DatabaseFaultKind = "cut-database" | "stall-database" | "hold-write-lock";

export interface SoakDatabase {
  readonly dialect: "postgresql" | "mysql" | "sqlite";
  /** The URL of the orchestrator's own reads (never through a proxy). */
  readonly url: string;
  /** The URL workers and cleaners use. */
  readonly childUrl: string;
  /** Behind PgBouncer: the direct URL workers and cleaners use for their sessions of their own (directUrl). */
  readonly childDirectUrl?: string;
  /** The URL of the driver's app transactions (never through a proxy; through PgBouncer when there is one). */
  readonly appUrl: string;
  readonly faultKinds: readonly DatabaseFaultKind[];
  /** Injects one database fault; resolves with what it did, for the fault log. */
  inject(kind: DatabaseFaultKind, random: SeededRandom): Promise<string>;
  /** Ends every fault in progress. */
  restore(): void;
  readonly store: Store;
  readonly prisma: SoakPrisma;
  close(): Promise<void>;
}

/**
 * The soak's database on `url`: PostgreSQL (postgresql://), MySQL/MariaDB (mysql://, mariadb://) or SQLite (file:).
 * `pgbouncer`: PostgreSQL reached through a PgBouncer in transaction mode of the soak's own, the sessions of their own
 * on the direct URL; the faults cut and stall both. `proxyHost`: the address the proxies listen on (default 127.0.0.1;
 * with --hosts, the bridge's address, which the other hosts reach).
 */
export async function openSoakDatabase(url: string, options: { pgbouncer?: boolean; proxyHost?: string } = {}): Promise<SoakDatabase> {
  const store = openStore(url, { max: 3 });
  const prisma = soakPrisma(url);
  await createSoakEffects(prisma);
  await createSoakGuard(prisma, url);
  const close = async () => {
    await prisma.$disconnect();
    await store.close();
  };
  if (url.startsWith("file:")) return sqlite(url, store, prisma, close);
  if (/^(mysql|mariadb):/.test(url)) return server("mysql", 3306, url, store, prisma, close, options.proxyHost);
  if (!options.pgbouncer) return server("postgresql", 5432, url, store, prisma, close, options.proxyHost);
  const bouncer = await PgBouncer.start(url);
  return server(
    "postgresql",
    5432,
    url,
    store,
    prisma,
    async () => {
      await close();
      await bouncer.stop();
    },
    undefined,
    bouncer,
  );
}

/**
 * The soak's URL of database `name` on a MySQL/MariaDB server: without the tests' session settings (sessionVariables).
 * The installed mariadb driver (3.4.5, the version @prisma/adapter-mariadb pins) runs them at connect and, before 3.5.1,
 * leaves an unhandled rejection that ends the process when the connection breaks during them, which the cut and stall
 * faults make happen (docs/databases-mysql.md, "Server requirements"). The soak would only find that driver bug again.
 */
export function mysqlSoakUrl(serverUrl: string, name: string): string {
  return mysqlDatabaseUrl(serverUrl, name, {});
}

/**
 * The transactional task's business table: one row per committed attempt, so a double commit shows as two rows.
 * Standard SQL, the same on PostgreSQL, SQLite and MySQL/MariaDB; no key on purpose, so a second row cannot be refused.
 */
export async function createSoakEffects(prisma: SoakPrisma): Promise<void> {
  await prisma.$executeRawUnsafe("CREATE TABLE IF NOT EXISTS soak_effects (task_id VARCHAR(36) NOT NULL, attempt INTEGER NOT NULL, pid INTEGER NOT NULL)");
}

/** A database server reached through a TCP proxy of the soak's own, whose connections the faults cut and stall. */
async function server(
  dialect: "postgresql" | "mysql",
  defaultPort: number,
  url: string,
  store: Store,
  prisma: SoakPrisma,
  close: () => Promise<void>,
  proxyHost?: string,
  bouncer?: PgBouncer,
): Promise<SoakDatabase> {
  const target = new URL(url);
  const direct = await new TcpProxy(target.hostname, Number(target.port || defaultPort), proxyHost).start();
  const pooled = bouncer ? await new TcpProxy("127.0.0.1", bouncer.port).start() : undefined;
  const proxies = pooled ? [direct, pooled] : [direct];
  return {
    dialect,
    url,
    childUrl: pooled ? pooled.route(bouncer!.url(url)) : direct.route(url),
    ...(bouncer && { childDirectUrl: direct.route(url) }),
    appUrl: bouncer ? bouncer.url(url) : url,
    faultKinds: ["cut-database", "stall-database"],
    async inject(kind, random) {
      if (kind === "cut-database") {
        for (const proxy of proxies) proxy.cut();
        return "";
      }
      const ms = random.int(300, 1500);
      for (const proxy of proxies) proxy.blackhole();
      await new Promise((resolve) => setTimeout(resolve, ms));
      for (const proxy of proxies) proxy.restore();
      return `${ms} ms`;
    },
    restore: () => proxies.forEach((proxy) => proxy.restore()),
    store,
    prisma,
    close: async () => {
      for (const proxy of proxies) await proxy.stop();
      await close();
    },
  };
}

function sqlite(url: string, store: Store, prisma: SoakPrisma, close: () => Promise<void>): SoakDatabase {
  const file = url.replace(/^file:/, "");
  return {
    dialect: "sqlite",
    url,
    childUrl: url,
    appUrl: url,
    faultKinds: ["hold-write-lock"],
    async inject(_kind, random) {
      // Another process takes the write lock and keeps it past every soak process's busy timeout.
      const ms = random.int(SOAK_BUSY_MS + 200, SOAK_BUSY_MS * 2 + 500);
      const child = spawn(process.execPath, ["--import", "tsx", "test/sqlite/fixtures/lock-holder.ts"], {
        cwd: root,
        env: { ...process.env, FILE: file, LOCK: "write", HOLD_MS: String(ms), ONCE: "1" },
        stdio: ["ignore", "pipe", "inherit"],
      });
      const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
      if ((await exited) !== 0) throw new Error("the write-lock holder failed");
      return `${ms} ms`;
    },
    restore: () => {},
    store,
    prisma,
    close,
  };
}
