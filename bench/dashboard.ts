// Benchmark of the dashboard's pages on a table of 1,000,000 tasks: seeds a fresh database, serves the dashboard on
// loopback, requests each page N times, and prints p50/p95 per page as markdown, without and with the browse index.
// Run: node --import tsx bench/dashboard.ts   (env: DATABASE_URL server URL, BENCH_ROWS, BENCH_N, BENCH_KEEP=1)

import os from "node:os";
import pg from "pg";
import { silentLogger } from "../src/index.js";
import { startDashboardServer, type DashboardServer } from "../src/dashboard/server.js";
import { createBenchDatabase, seedTasks } from "./dashboard/seed.js";

const serverUrl = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const rows = Number(process.env.BENCH_ROWS ?? 1_000_000);
const n = Number(process.env.BENCH_N ?? 40);

interface PageCase {
  label: string;
  path: string;
}

async function pageCases(sql: pg.Client): Promise<PageCase[]> {
  const pick = async (query: string) => (await sql.query<{ id: string }>(query)).rows[0]?.id ?? "";
  const deadId = await pick("SELECT id::text AS id FROM tasks WHERE status = 'dead' ORDER BY id LIMIT 1 OFFSET 500");
  const deepId = await pick("SELECT id::text AS id FROM tasks ORDER BY id LIMIT 1 OFFSET 200000");
  const day = 24 * 3600 * 1000;
  const from = new Date(Date.now() - 5 * day).toISOString().slice(0, 16);
  const to = new Date(Date.now() - 5 * day + 3600 * 1000).toISOString().slice(0, 16);
  return [
    { label: "overview", path: "/" },
    { label: "task list, no filter", path: "/tasks" },
    { label: "task list, status=dead", path: "/tasks?status=dead" },
    { label: "task list, lease expired", path: "/tasks?status=expired" },
    { label: "task list, due pending", path: "/tasks?status=due" },
    { label: "task list, rare name (0.1%)", path: "/tasks?name=rebuild-search-index" },
    { label: "task list, queue + status, deep page", path: `/tasks?queue=mail&status=succeeded&before=${deepId}` },
    { label: "task list, dead of a name, 1 h window 5 days ago", path: `/tasks?status=dead&name=send-email&from=${from}&to=${to}` },
    { label: "task list, by key", path: "/tasks?key=seed-500000" },
    { label: "task detail", path: `/tasks/${deadId}` },
  ];
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function measure(server: DashboardServer, cases: PageCase[]): Promise<string[]> {
  const base = server.url.replace(/\/$/, "");
  const lines = ["| page | p50 ms | p95 ms | max ms | rows shown |", "| --- | ---: | ---: | ---: | ---: |"];
  for (const page of cases) {
    const times: number[] = [];
    let shown = 0;
    for (let i = 0; i < n + 3; i++) {
      const started = performance.now();
      const response = await fetch(`${base}${page.path}`);
      const body = await response.text();
      const ms = performance.now() - started;
      if (response.status !== 200) throw new Error(`${page.path} answered ${response.status}: ${body.slice(0, 300)}`);
      if (i >= 3) times.push(ms);
      shown = (body.match(/<tr data-task-id=/g) ?? []).length || (body.match(/<tr data-group=/g) ?? []).length;
    }
    times.sort((a, b) => a - b);
    lines.push(`| ${page.label} | ${percentile(times, 50).toFixed(1)} | ${percentile(times, 95).toFixed(1)} | ${times[times.length - 1]!.toFixed(1)} | ${shown} |`);
    process.stderr.write(".");
  }
  process.stderr.write("\n");
  return lines;
}

const started = Date.now();
const database = await createBenchDatabase(serverUrl);
const sql = new pg.Client({ connectionString: database.url });
let server: DashboardServer | undefined;
try {
  process.stderr.write(`seeding ${rows.toLocaleString("en-US")} tasks into ${database.name}…\n`);
  await seedTasks(database.url, rows);
  await sql.connect();
  await sql.query("VACUUM ANALYZE tasks");
  const seeded = Date.now();
  const version = (await sql.query<{ server_version: string }>("SHOW server_version")).rows[0]!.server_version;
  const size = (await sql.query<{ s: string }>("SELECT pg_size_pretty(pg_total_relation_size('tasks')) AS s")).rows[0]!.s;
  const cases = await pageCases(sql);
  server = await startDashboardServer({ databaseUrl: database.url, port: 0, logger: silentLogger });

  process.stderr.write("measuring without the browse index");
  const without = await measure(server, cases);
  await sql.query("CREATE INDEX tasks_browse_idx ON tasks (queue, name, status, id)");
  await sql.query("VACUUM ANALYZE tasks");
  const index = (await sql.query<{ s: string }>("SELECT pg_size_pretty(pg_relation_size('tasks_browse_idx')) AS s")).rows[0]!.s;
  await server.close(); // a new dashboard sees the index at once (a running one re-checks once a minute)
  server = await startDashboardServer({ databaseUrl: database.url, port: 0, logger: silentLogger });
  process.stderr.write("measuring with the browse index");
  const withIndex = await measure(server, cases);

  console.log(`### Dashboard pages on ${rows.toLocaleString("en-US")} tasks (table ${size}, PostgreSQL ${version})`);
  console.log(
    `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB; ${n} sequential requests per page after 3 warm-ups, ` +
      `timed from request to last byte over loopback; seeded in ${Math.round((seeded - started) / 1000)} s.\n`,
  );
  console.log(`With the browse index \`(queue, name, status, id)\` (${index}):\n`);
  console.log(withIndex.join("\n"));
  console.log(`\nWithout it (the migration as shipped today):\n`);
  console.log(without.join("\n"));
} finally {
  await server?.close();
  await sql.end().catch(() => {});
  if (process.env.BENCH_KEEP) process.stderr.write(`kept ${database.url}\n`);
  else await database.drop();
}
