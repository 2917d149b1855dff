// At what table size the dashboard's missing browse index starts to matter: seeds fresh PostgreSQL databases of several
// sizes and times, through the store, the queries the dashboard runs for its overview counts and list pages, without
// and with the browse index, and the dashboard's own size check (countTasksUpTo, once a minute). Prints one markdown
// table (median and p95 per query, in ms) and the machine's load.
// Run: node --import tsx bench/dashboard-browse-index.ts [--sizes=10000,30000,100000,300000,1000000] [--n=15]
//      (env: DATABASE_URL server URL, default postgresql://postgres@127.0.0.1:5432/postgres)

import os from "node:os";
import { parseArgs } from "node:util";
import pg from "pg";
import { BROWSE_INDEX_ADVICE_ROWS } from "../src/dashboard/dashboard-context.js";
import { openStore } from "../src/dialects/index.js";
import type { Store } from "../src/store/store.js";
import { taskTable } from "../src/store/task-table.js";
import type { TaskGroup } from "../src/store/views.js";
import { createBenchDatabase, seedTasks } from "./dashboard/seed.js";

const { values } = parseArgs({ options: { sizes: { type: "string" }, n: { type: "string" } } });
const sizes = (values.sizes ?? "10000,30000,100000,300000,1000000").split(",").map(Number);
const n = Number(values.n ?? 15);
const serverUrl = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
/** The dashboard's defaults: counts exact up to 10,000 per group, 50 rows a page. */
const EXACT_LIMIT = 10_000;
const PAGE = { limit: 50 };

/** What one page of the dashboard asks the store, given whether the browse index exists (as routes.ts does). */
const QUERIES: Array<{ label: string; run: (store: Store, browse: boolean) => Promise<unknown> }> = [
  { label: "overview counts", run: async (store, browse) => store.countGroups({ groups: browse ? await store.listTaskGroups() : undefined, exactLimit: EXACT_LIMIT }) },
  { label: "list, no filter", run: async (store, browse) => store.listTasks({}, PAGE, browse ? await store.listTaskGroups() : undefined) },
  { label: "list, dead", run: async (store, browse) => store.listTasks({ status: "dead" }, PAGE, browse ? await store.listTaskGroups() : undefined) },
  {
    label: "list, rare name (0.1 %)",
    run: async (store, browse) =>
      store.listTasks(
        { name: "rebuild-search-index" },
        PAGE,
        browse ? (await store.listTaskGroups()).filter((g: TaskGroup) => g.name === "rebuild-search-index") : undefined,
      ),
  },
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Median and p95 of `n` runs of `run` after 3 warm-ups, in ms. */
async function time(run: () => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  const times: number[] = [];
  for (let i = 0; i < n + 3; i++) {
    const started = performance.now();
    await run();
    if (i >= 3) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95) };
}

async function measure(store: Store, browse: boolean): Promise<Array<{ p50: number; p95: number }>> {
  const results: Array<{ p50: number; p95: number }> = [];
  for (const query of QUERIES) results.push(await time(() => query.run(store, browse)));
  return results;
}

const fmt = (value: number) => (value < 10 ? value.toFixed(2) : value.toFixed(1));
const rows: string[] = [];
let version = "";
const loads: number[] = [];
for (const size of sizes) {
  const database = await createBenchDatabase(serverUrl);
  const sql = new pg.Client({ connectionString: database.url });
  // As the dashboard opens its own (its pool turns JIT off), with a statement limit long enough for the slow cases.
  const store = openStore(database.url, { table: taskTable(), max: 2, applicationName: "browse-index bench", statementTimeoutMs: 60_000 });
  try {
    await seedTasks(database.url, size);
    await sql.connect();
    await sql.query("VACUUM ANALYZE tasks");
    version ||= (await sql.query<{ server_version: string }>("SHOW server_version")).rows[0]!.server_version;
    loads.push(os.loadavg()[0]!);
    process.stderr.write(`${size.toLocaleString("en-US")} rows: without the index… `);
    const without = await measure(store, false);
    const check = await time(() => store.countTasksUpTo(BROWSE_INDEX_ADVICE_ROWS));
    await sql.query(store.browseIndexAdvice());
    await sql.query("VACUUM ANALYZE tasks");
    process.stderr.write("with it…\n");
    const withIndex = await measure(store, true);
    const cells = QUERIES.map((_, i) => `${fmt(without[i]!.p50)} / ${fmt(without[i]!.p95)} | ${fmt(withIndex[i]!.p50)} / ${fmt(withIndex[i]!.p95)}`);
    rows.push(`| ${size.toLocaleString("en-US")} | ${cells.join(" | ")} | ${fmt(check.p50)} / ${fmt(check.p95)} |`);
  } finally {
    await store.close();
    await sql.end().catch(() => {});
    await database.drop();
  }
}

console.log(
  `PostgreSQL ${version}, ${os.cpus().length} cores; ${n} sequential runs per query after 3 warm-ups; load average ${loads.map((l) => l.toFixed(1)).join(", ")} at each size's start.`,
);
console.log("Each cell: p50 / p95 in ms, without the browse index | with it.\n");
console.log(`| rows | ${QUERIES.map((q) => `${q.label}: without | with`).join(" | ")} | size check (up to ${BROWSE_INDEX_ADVICE_ROWS.toLocaleString("en-US")}) |`);
console.log(`|--:|${QUERIES.map(() => "--:|--:").join("|")}|--:|`);
console.log(rows.join("\n"));
