// The server-side counters behind bench/scaling-costs.ts, read as one flat map so two samples subtract: PostgreSQL's
// WAL position and pg_stat_wal, rows per table, transactions, statements by kind (pg_stat_statements); MariaDB's global
// status (redo bytes, rows, statements by kind, fsyncs). Each server is the run's own, so global counters are ours.

import mariadb from "mariadb";
import pg from "pg";
import { sleep } from "./clock.js";

export type Counters = Record<string, number>;

/** The harness's own queries, left out of the statement counts. */
const OWN_QUERY = /pg_stat|pg_current_wal_lsn|pg_backend_pid|status = 'pending'\) OR EXISTS/;

export async function serverCounters(dialect: "postgresql" | "mysql", url: string): Promise<Counters> {
  return dialect === "mysql" ? mysqlCounters(url) : postgresCounters(url);
}

/** Waits until no other session is connected to the database: a PostgreSQL backend flushes its statistics as it ends. */
export async function sessionsClosed(dialect: "postgresql" | "mysql", url: string): Promise<void> {
  if (dialect === "mysql") return; // MariaDB's global status counts at once
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (let i = 0; i < 600; i++) {
      const { rows } = await client.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
      );
      if (rows[0]!.n === 0) return;
      await sleep(50);
    }
    throw new Error("sessions of the measured database did not close within 30 s");
  } finally {
    await client.end();
  }
}

async function postgresCounters(url: string): Promise<Counters> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const counters: Counters = {};
    const wal = await client.query<{ bytes: string; records: string; fpi: string; syncs: string }>(
      "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint AS bytes, wal_records AS records, wal_fpi AS fpi, wal_sync AS syncs FROM pg_stat_wal",
    );
    counters["WAL bytes"] = Number(wal.rows[0]!.bytes);
    counters["WAL records"] = Number(wal.rows[0]!.records);
    counters["WAL full-page images"] = Number(wal.rows[0]!.fpi);
    counters["WAL flushes (fsync)"] = Number(wal.rows[0]!.syncs);
    const tables = await client.query<{ relname: string; ins: string; upd: string; hot: string; del: string }>(
      "SELECT relname, n_tup_ins AS ins, n_tup_upd AS upd, n_tup_hot_upd AS hot, n_tup_del AS del FROM pg_stat_user_tables",
    );
    for (const row of tables.rows) {
      counters[`rows inserted: ${row.relname}`] = Number(row.ins);
      counters[`rows updated: ${row.relname}`] = Number(row.upd);
      counters[`  of which HOT: ${row.relname}`] = Number(row.hot);
      counters[`rows deleted: ${row.relname}`] = Number(row.del);
    }
    const xact = await client.query<{ commits: string }>("SELECT xact_commit AS commits FROM pg_stat_database WHERE datname = current_database()");
    counters["transactions committed"] = Number(xact.rows[0]!.commits);
    const statements = await client.query<{ query: string; calls: string }>(
      "SELECT query, calls FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())",
    );
    for (const row of statements.rows) {
      if (OWN_QUERY.test(row.query)) continue;
      const kind = row.query.trim().split(/\s+/)[0]!.toUpperCase();
      counters[`statements: ${kind}`] = (counters[`statements: ${kind}`] ?? 0) + Number(row.calls);
      counters["statements (all)"] = (counters["statements (all)"] ?? 0) + Number(row.calls);
    }
    return counters;
  } finally {
    await client.end();
  }
}

const MYSQL_STATUS: Record<string, string> = {
  Innodb_os_log_written: "redo log bytes",
  Innodb_log_writes: "redo log writes",
  Innodb_data_fsyncs: "InnoDB fsyncs (redo and data)",
  // MariaDB 10.6+ has no Innodb_rows_*: the handler counters count row writes (temporary tables' too).
  Handler_write: "rows inserted (handler)",
  Handler_update: "rows updated (handler)",
  Handler_delete: "rows deleted (handler)",
  Com_insert: "statements: INSERT",
  Com_update: "statements: UPDATE",
  Com_delete: "statements: DELETE",
  Com_select: "statements: SELECT",
  Com_begin: "statements: BEGIN",
  Com_commit: "statements: COMMIT",
  Com_rollback: "statements: ROLLBACK",
  Com_set_option: "statements: SET",
  Questions: "statements (all)",
  Handler_commit: "transactions committed (handler)",
};

async function mysqlCounters(url: string): Promise<Counters> {
  const parsed = new URL(url);
  const connection = await mariadb.createConnection({ host: parsed.hostname, port: Number(parsed.port), user: decodeURIComponent(parsed.username) });
  try {
    const rows = await connection.query<Array<{ Variable_name: string; Value: string }>>(
      `SHOW GLOBAL STATUS WHERE Variable_name IN (${Object.keys(MYSQL_STATUS)
        .map((name) => `'${name}'`)
        .join(", ")})`,
    );
    return Object.fromEntries(rows.map((row) => [MYSQL_STATUS[row.Variable_name]!, Number(row.Value)]));
  } finally {
    await connection.end();
  }
}

/** Bytes of the task table (data and indexes) per row: as the run left it, and rewritten (live rows alone). */
export async function tableBytesPerRow(dialect: "postgresql" | "mysql", url: string): Promise<{ asLeft: number; rewritten: number; rows: number }> {
  if (dialect === "mysql") {
    const parsed = new URL(url);
    const connection = await mariadb.createConnection({
      host: parsed.hostname,
      port: Number(parsed.port),
      user: decodeURIComponent(parsed.username),
      database: parsed.pathname.slice(1),
    });
    try {
      const size = async () => {
        await connection.query("ANALYZE TABLE tasks");
        const [row] = await connection.query<Array<{ bytes: number }>>(
          "SELECT data_length + index_length AS bytes FROM information_schema.TABLES WHERE table_schema = DATABASE() AND table_name = 'tasks'",
        );
        return Number(row!.bytes);
      };
      const [counted] = await connection.query<Array<{ rows: number }>>("SELECT count(*) AS `rows` FROM tasks");
      const rows = Number(counted!.rows);
      const asLeft = await size();
      await connection.query("OPTIMIZE TABLE tasks");
      return { asLeft: asLeft / rows, rewritten: (await size()) / rows, rows };
    } finally {
      await connection.end();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const size = async () => Number((await client.query<{ bytes: string }>("SELECT pg_total_relation_size('tasks') AS bytes")).rows[0]!.bytes);
    const rows = Number((await client.query<{ n: string }>("SELECT count(*) AS n FROM tasks")).rows[0]!.n);
    const asLeft = await size();
    await client.query("VACUUM FULL tasks");
    return { asLeft: asLeft / rows, rewritten: (await size()) / rows, rows };
  } finally {
    await client.end();
  }
}
