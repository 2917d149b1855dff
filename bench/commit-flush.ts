// What the WAL flush costs the worker's claims and completions on PostgreSQL, one task at a time (where no batch
// shares a flush): the store's claim and completion of one task each, durable against the store's asynchronous-commit
// view (asyncCompletions, asyncClaims), in interleaved rounds on one fresh database; medians of the rounds. Then the
// same single-row UPDATE on one connection, three ways: durable, `set_config('synchronous_commit', 'off', true)` inside
// the statement, and the store's way (BEGIN; SET LOCAL synchronous_commit = off / UPDATE / COMMIT).
// Usage: npx tsx bench/commit-flush.ts [--rounds=7] [--tasks=500]

import { performance } from "node:perf_hooks";
import pg from "pg";
import { openStore, type Store } from "../src/index.js";
import { applySchema } from "../test/support/schema.js";
import { prepared, sendInsert } from "../test/conformance/store/bed.js";
import { resolveServices } from "../test/support/services.js";
import { Databases } from "./databases.js";

const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const rounds = Number(arg("rounds", "7"));
const tasks = Number(arg("tasks", "500"));
const services = await resolveServices();
const databases = new Databases(services.databaseUrl);
const template = await databases.template("commit_flush", (url) => applySchema(url));
const database = await databases.clone(template);
const store = openStore(database.url, { max: 2 });
const relaxed = store.withAsyncCommit()!;
const filter = { owner: "bench", leaseMs: 30_000, names: ["t"], queues: ["default"] };

/** Which store claims and which completes, per variant (the worker's options in brackets). */
const VARIANTS: Record<string, { claims: Store; completions: Store }> = {
  "durable claim + durable completion (asyncCompletions: false)": { claims: store, completions: store },
  "durable claim + async completion (default)": { claims: store, completions: relaxed },
  "async claim + async completion (asyncClaims: true)": { claims: relaxed, completions: relaxed },
};
const perTask = new Map<string, { claim: number[]; complete: number[] }>(Object.keys(VARIANTS).map((name) => [name, { claim: [], complete: [] }]));
try {
  for (let round = 0; round < rounds; round++) {
    for (const [name, { claims, completions }] of Object.entries(VARIANTS)) {
      const rows = Array.from({ length: tasks }, () => prepared({ name: "t" }));
      await sendInsert(store, rows, true);
      let claimMs = 0;
      let completeMs = 0;
      for (const row of rows) {
        const t0 = performance.now();
        await claims.claimByIds([row.id], filter);
        const t1 = performance.now();
        await completions.complete("bench", [{ id: row.id, resultJson: "null" }]);
        claimMs += t1 - t0;
        completeMs += performance.now() - t1;
      }
      perTask.get(name)!.claim.push(claimMs / tasks);
      perTask.get(name)!.complete.push(completeMs / tasks);
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
  console.log(`${rounds} rounds of ${tasks} tasks, one at a time; load average at the end ${(await import("node:os")).loadavg()[0]!.toFixed(2)}`);
  console.log("| variant | claim, ms (median) | completion, ms (median) | completion, ms per round |");
  console.log("|---|--:|--:|---|");
  for (const [name, { claim, complete }] of perTask) {
    console.log(`| ${name} | ${median(claim).toFixed(3)} | ${median(complete).toFixed(3)} | ${complete.map((ms) => ms.toFixed(2)).join(" ")} |`);
  }
  await statementAlone(database.url);
} finally {
  await store.close();
  await databases.dropAll();
}

/** One single-row UPDATE per commit on one connection, durable against two ways of not waiting for the flush. */
async function statementAlone(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("CREATE TABLE flush_rows (id int PRIMARY KEY, n int NOT NULL); INSERT INTO flush_rows SELECT g, 0 FROM generate_series(1, 1000) g");
    const update = (id: number) => client.query({ name: "flush_update", text: "UPDATE flush_rows SET n = n + 1 WHERE id = $1", values: [id] });
    const ways: Record<string, (id: number) => Promise<unknown>> = {
      "durable (autocommit)": update,
      "set_config(…, true) inside the statement": (id) =>
        client.query({
          name: "flush_set_config",
          text: "UPDATE flush_rows t SET n = n + 1 FROM (SELECT set_config('synchronous_commit', 'off', true)) s WHERE id = $1",
          values: [id],
        }),
      "BEGIN; SET LOCAL … / UPDATE / COMMIT (the store's)": async (id) => {
        await client.query("BEGIN; SET LOCAL synchronous_commit = off");
        await update(id);
        await client.query("COMMIT");
      },
    };
    const results = new Map<string, number[]>(Object.keys(ways).map((way) => [way, []]));
    for (let round = 0; round < rounds; round++) {
      for (const [way, commit] of Object.entries(ways)) {
        const t0 = performance.now();
        for (let i = 0; i < 1000; i++) await commit((i % 1000) + 1);
        results.get(way)!.push((performance.now() - t0) / 1000);
      }
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
    console.log(`\nThe statement alone, ${rounds} rounds of 1,000 commits on one connection`);
    console.log("| way | ms per commit (median) | per round |");
    console.log("|---|--:|---|");
    for (const [way, values] of results) console.log(`| ${way} | ${median(values).toFixed(3)} | ${values.map((ms) => ms.toFixed(3)).join(" ")} |`);
  } finally {
    await client.end();
  }
}
