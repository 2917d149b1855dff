// Seeds a fresh benchmark database with a realistic task table: a week of history, mostly succeeded tasks, and the
// pending, running (some with expired leases), dead and cancelled rows an operator looks for. All in SQL, in seconds.

import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import pg from "pg";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** The task names of the seed, their queue and their share of the rows (the shares add up to 1). */
export const SEED_TASKS = [
  { name: "send-email", queue: "mail", share: 0.4 },
  { name: "send-report", queue: "default", share: 0.2 },
  { name: "resize-image", queue: "images", share: 0.15 },
  { name: "sync-crm", queue: "integrations", share: 0.1 },
  { name: "deliver-webhook", queue: "integrations", share: 0.08 },
  { name: "charge-card", queue: "billing", share: 0.05 },
  { name: "generate-invoice-pdf", queue: "billing", share: 0.019 },
  { name: "rebuild-search-index", queue: "default", share: 0.001 },
] as const;

export interface BenchDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** Creates an empty database on the server of `serverUrl` and applies the package's migrations to it. */
export async function createBenchDatabase(serverUrl: string): Promise<BenchDatabase> {
  const name = `ptq_dashbench_${randomBytes(4).toString("hex")}`;
  await onServer(serverUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const dir = `${root}prisma/migrations`;
    for (const migration of readdirSync(dir)
      .filter((entry) => /^\d+_/.test(entry))
      .sort()) {
      await client.query(readFileSync(`${dir}/${migration}/migration.sql`, "utf8"));
    }
  } finally {
    await client.end();
  }
  return { url: url.toString(), name, drop: () => onServer(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

async function onServer(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * Inserts `count` tasks created over the last 7 days, ids as uuidv7 of their creation time. Among the newest 1%:
 * a tenth pending (half delayed into the future, half due and waiting) and a hundredth running (a third with an
 * expired lease); 1.5% dead, 0.4% cancelled, the rest succeeded. The last hour holds about count/168 rows.
 */
export async function seedTasks(databaseUrl: string, count: number, options: { recentPerMinute?: number } = {}): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const names = SEED_TASKS.map((task) => task.name);
    const queues = SEED_TASKS.map((task) => task.queue);
    let sum = 0;
    const bounds = SEED_TASKS.map((task) => (sum += task.share));
    await client.query("SET synchronous_commit = off");
    await client.query(
      `INSERT INTO tasks (id, name, queue, payload, status, priority, run_at, attempts, max_attempts, lease_owner,
                          lease_expires_at, last_error, result, key, created_at, updated_at, finished_at, published_at)
       SELECT (lpad(to_hex((extract(epoch FROM s.created_at) * 1000)::bigint), 12, '0') || '7' || substr(s.h, 1, 3)
                || '8' || substr(s.h, 4, 15))::uuid,
              ($1::text[])[s.k], ($2::text[])[s.k],
              jsonb_build_object('accountId', s.i % 5000, 'email', 'user' || s.i || '@example.com', 'locale', 'en-GB',
                                 'attempt', 'seed'),
              s.status, 0,
              CASE WHEN s.status = 'pending' AND s.i % 2 = 0 THEN now() + (s.i % 3600) * interval '1 second'
                   ELSE s.created_at END,
              CASE WHEN s.status = 'dead' THEN 5 WHEN s.status = 'pending' THEN (s.i % 3 = 0)::int ELSE 1 END, 5,
              CASE WHEN s.status = 'running' THEN 'worker-' || (s.i / 100 % 4) || ':' || (1000 + s.i / 100 % 4) || ':seed' END,
              CASE WHEN s.status = 'running' THEN now() + CASE WHEN s.i % 3 = 0 THEN interval '-5 minutes'
                                                                ELSE interval '1 hour' END END,
              CASE WHEN s.status = 'dead' OR (s.status = 'pending' AND s.i % 3 = 0)
                   THEN 'Error: upstream answered 503 Service Unavailable' || chr(10) ||
                   '    at deliver (/app/src/tasks/deliver.ts:42:11)' || chr(10) || '    at process.processTicksAndRejections' END,
              CASE WHEN s.status = 'succeeded' THEN jsonb_build_object('ok', true, 'ms', s.i % 900) END,
              CASE WHEN s.i % 10 = 0 THEN 'seed-' || s.i END,
              s.created_at, CASE WHEN s.status = 'running' THEN now() ELSE s.created_at + interval '2 seconds' END,
              CASE WHEN s.status IN ('succeeded', 'dead', 'cancelled') THEN s.created_at + (s.i % 5000) * interval '1 millisecond' END,
              s.created_at
       FROM (
         SELECT i, md5(i::text) AS h,
                now() - interval '7 days' + i * (interval '7 days' / $3::int) AS created_at,
                (SELECT count(*) FROM unnest($4::float8[]) AS b WHERE b < ((i::bigint * 7919) % 100000) / 100000.0)::int + 1 AS k,
                CASE WHEN i > $3::int * 0.99 AND i % 10 = 1 THEN 'pending'
                     WHEN i > $3::int * 0.99 AND i % 100 = 2 THEN 'running'
                     WHEN i % 1000 BETWEEN 100 AND 114 THEN 'dead'
                     WHEN i % 1000 BETWEEN 200 AND 203 THEN 'cancelled'
                     ELSE 'succeeded' END AS status
         FROM generate_series(1, $3::int) AS i
       ) s`,
      [names, queues, count, bounds],
    );
    if (options.recentPerMinute) await seedLastHour(client, options.recentPerMinute, names, queues, bounds);
    await client.query("ANALYZE tasks");
  } finally {
    await client.end();
  }
}

/** Adds finished tasks over the last hour at about `perMinute` a minute (in waves, 1 in 40 dead), for the chart. */
async function seedLastHour(client: pg.Client, perMinute: number, names: string[], queues: string[], bounds: number[]): Promise<void> {
  await client.query(
    `INSERT INTO tasks (id, name, queue, payload, status, run_at, attempts, max_attempts, last_error, result,
                        created_at, updated_at, finished_at, published_at)
     SELECT (lpad(to_hex((extract(epoch FROM s.finished_at - interval '2 seconds') * 1000)::bigint), 12, '0') || '7'
               || substr(s.h, 1, 3) || '9' || substr(s.h, 4, 15))::uuid,
            ($1::text[])[s.k], ($2::text[])[s.k], jsonb_build_object('recent', s.i), s.status,
            s.finished_at - interval '2 seconds', CASE WHEN s.status = 'dead' THEN 5 ELSE 1 END, 5,
            CASE WHEN s.status = 'dead' THEN 'Error: connect ETIMEDOUT 10.0.0.12:443' || chr(10) || '    at TCPConnectWrap.afterConnect' END,
            CASE WHEN s.status = 'succeeded' THEN '{"ok":true}'::jsonb END,
            s.finished_at - interval '2 seconds', s.finished_at, s.finished_at, s.finished_at - interval '2 seconds'
     FROM (
       SELECT i, md5('recent' || i) AS h,
              now() - (i / $3::int) * interval '1 minute' - (i % $3::int) * (interval '1 minute' / $3::int) AS finished_at,
              (SELECT count(*) FROM unnest($4::float8[]) AS b WHERE b < ((i::bigint * 7919) % 100000) / 100000.0)::int + 1 AS k,
              CASE WHEN i % 40 = 0 OR (i / $3::int BETWEEN 17 AND 19 AND i % 6 = 0) THEN 'dead' ELSE 'succeeded' END AS status
       FROM generate_series(0, 60 * $3::int - 1) AS i
       WHERE (i % $3::int) < $3::int * (0.6 + 0.35 * sin(i / $3::int / 4.0))
     ) s`,
    [names, queues, perMinute, bounds],
  );
}
