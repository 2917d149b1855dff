// `npx tsx bench/sqlite-claim.ts [--count=20000] [--batch=200] [--runs=3]`: the SQLite claim, measured two ways on a
// file of `count` pending tasks drained by 1 and by 2 worker processes, each claiming `batch` tasks at a time and
// marking them succeeded with the store's completion statement:
//   compare-and-set  the dialect's claim (src/dialects/sqlite/sql/claim-tasks.ts through openStore): one
//                    UPDATE … WHERE id IN (SELECT … LIMIT n) AND status = 'pending' RETURNING, a single write
//   generation lock  an optimistic lock: read `batch` pending rows (whole rows, as a worker needs them), then in
//                    BEGIN IMMEDIATE one UPDATE … WHERE id = ? AND generation = ? per row
//                    (the attempts column serves as the generation); a row another worker took in between is a lost
//                    compare-and-set. Rows become task records by the dialect's own mapping, as in the claim above.
// Prints claims per second (all processes together) and the lost compare-and-sets of each run.

import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { openStore, type Store } from "../src/index.js";
import { oursSqlite } from "./peers/ours-sqlite.js";
import { SqliteFiles } from "./sqlite-files.js";
import { betterSqlite3 } from "../src/dialects/sqlite/driver.js";
import { taskColumns, toTaskRecord, type SqliteTaskRow } from "../src/dialects/sqlite/sql/task-row.js";

type Method = "compare-and-set" | "generation lock";
interface ChildReport {
  claimed: number;
  lost: number;
  endedAt: number;
}

const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const NOW = `strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')`;

if (process.env.CLAIM_CHILD) {
  const { url, method, batch, startAt } = JSON.parse(process.env.CLAIM_CHILD) as { url: string; method: Method; batch: number; startAt: number };
  const store = openStore(url);
  const owner = `claim-bench-${process.pid}`;
  const filter = { owner, leaseMs: 30_000, names: ["bench-noop"], queues: ["default"] };
  const claim = method === "compare-and-set" ? (n: number) => casClaim(store, n, filter) : generationClaim(url, owner);
  await new Promise((resolve) => setTimeout(resolve, startAt - Date.now()));
  let claimed = 0;
  let lost = 0;
  for (;;) {
    const result = await claim(batch);
    lost += result.lost;
    if (result.ids.length === 0 && result.lost === 0) break;
    claimed += result.ids.length;
    await store.complete(
      owner,
      result.ids.map((id) => ({ id, resultJson: "null" })),
    );
  }
  const report: ChildReport = { claimed, lost, endedAt: Date.now() };
  process.send!(report, () => void store.close().then(() => process.exit(0)));
} else {
  await main();
}

async function casClaim(store: Store, n: number, filter: Parameters<Store["claimDue"]>[1]) {
  return { ids: (await store.claimDue(n, filter)).map((task) => task.id), lost: 0 };
}

/** The generation-lock claim, on its own better-sqlite3 connection (WAL, a 5 s busy timeout). */
function generationClaim(url: string, owner: string) {
  const Database = betterSqlite3();
  const db = new Database(url.slice("file:".length), { timeout: 5000 });
  db.pragma("journal_mode = WAL");
  const read = db.prepare(
    `SELECT ${taskColumns()} FROM tasks WHERE status = 'pending' AND queue = 'default' AND run_at <= ${NOW} ORDER BY priority DESC, run_at LIMIT ?`,
  );
  const take = db.prepare(
    `UPDATE tasks SET status = 'running', attempts = attempts + 1, lease_owner = ?, updated_at = ${NOW},
       lease_expires_at = strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now', '+30 seconds')
     WHERE id = ? AND attempts = ? AND status = 'pending'`,
  );
  const begin = db.prepare("BEGIN IMMEDIATE");
  const commit = db.prepare("COMMIT");
  return async (n: number) => {
    const rows = read.all(n) as SqliteTaskRow[];
    const ids: string[] = [];
    begin.run();
    for (const row of rows) {
      if (take.run(owner, row.id, row.attempts).changes === 1) ids.push(toTaskRecord({ ...row, attempts: row.attempts + 1, lease_owner: owner }).id);
    }
    commit.run();
    return { ids, lost: rows.length - ids.length };
  };
}

async function main(): Promise<void> {
  const count = Number(arg("count", "20000"));
  const batch = Number(arg("batch", "200"));
  const runs = Number(arg("runs", "3"));
  const files = new SqliteFiles();
  const template = await files.template("claim", (url) => oursSqlite.install({ databaseUrl: url, amqpUrl: "", prefix: "ptq_claim" }));
  const seeded = await files.clone(template);
  const producer = await oursSqlite.open({ databaseUrl: seeded.url, amqpUrl: "", prefix: "ptq_claim" });
  await producer.seed(count);
  await producer.close();
  const lines = ["| claim | processes | run | claims/s (all processes) | lost compare-and-sets |", "|---|--:|--:|--:|--:|"];
  try {
    for (let run = 1; run <= runs; run++) {
      for (const processes of [1, 2]) {
        for (const method of ["compare-and-set", "generation lock"] as Method[]) {
          const database = await files.clone(seeded);
          const startAt = Date.now() + 1500;
          const reports = await Promise.all(
            Array.from({ length: processes }, () => {
              const child = fork(fileURLToPath(import.meta.url), [], {
                env: { ...process.env, CLAIM_CHILD: JSON.stringify({ url: database.url, method, batch, startAt }) },
                execArgv: ["--import", "tsx"],
              });
              return new Promise<ChildReport>((resolve, reject) => {
                child.once("message", (report) => resolve(report as ChildReport));
                child.once("exit", (code) => code !== 0 && reject(new Error(`${method} child exited with ${code}`)));
              });
            }),
          );
          const claimed = reports.reduce((sum, r) => sum + r.claimed, 0);
          if (claimed !== count) throw new Error(`${method}: ${claimed} claimed of ${count}`);
          const seconds = (Math.max(...reports.map((r) => r.endedAt)) - startAt) / 1000;
          const lost = reports.reduce((sum, r) => sum + r.lost, 0);
          lines.push(`| ${method} | ${processes} | ${run} | ${Math.round(count / seconds).toLocaleString("en-US")} | ${lost} |`);
          process.stderr.write(`${lines.at(-1)}\n`);
          await files.drop(database);
        }
      }
    }
  } finally {
    await files.dropAll();
  }
  process.stdout.write(`claims of ${batch} from ${count.toLocaleString("en-US")} pending, each batch then completed in one statement\n${lines.join("\n")}\n`);
}
