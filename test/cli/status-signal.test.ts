// `task-runner status` prints the scaling signal per queue (table and --json) with the config's worker concurrency,
// says so when the tally table is missing, and refuses a bad flag before reaching the database.

import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { openStore, type Store } from "../../src/index.js";
import { prepared, sendInsert } from "../conformance/store/bed.js";
import { mysqlStoreDialect, postgresStoreDialect, type StoreDialect } from "../conformance/store/dialects.js";
import { uniquePrefix } from "../support/broker.js";
import { waitUntil } from "../support/wait.js";
import { fixtureDir, runCli } from "./cli-process.js";

const DIALECTS: Array<{ name: string; store: StoreDialect; app: string }> = [
  { name: "postgresql", store: postgresStoreDialect, app: fixtureDir("cli-app") },
  { name: "mysql", store: mysqlStoreDialect, app: fixtureDir("cli-mysql") },
];

describe.each(DIALECTS)("status: the scaling signal ($name)", (dialect) => {
  let database: { url: string; drop(): Promise<void> };
  let store: Store;
  let env: Record<string, string>;
  const cli = (args: string[]) => runCli(args, { cwd: dialect.app, env });

  beforeAll(async () => {
    database = await dialect.store.createDatabase();
    store = openStore(database.url, { max: 2 });
    env = { DATABASE_URL: database.url, AMQP_URL: inject("amqpUrl"), PTQ_PREFIX: uniquePrefix() };
    // Four tasks enqueued, two succeeded after 200 and 400 ms of work, one running, one due: a backlog of 1.
    const rows = [0, 1, 2, 3].map(() => prepared({ name: "finish-report", payload: { reportId: "r" } }));
    await sendInsert(store, rows);
    const filter = { owner: "worker-1", leaseMs: 60_000, names: ["finish-report"], queues: ["default"] };
    await store.claimByIds(
      rows.slice(0, 3).map((row) => row.id),
      filter,
    );
    await store.complete("worker-1", [
      { id: rows[0]!.id, resultJson: "null" },
      { id: rows[1]!.id, resultJson: "null" },
    ]);
    await store.addSuccessTallies("worker-1", [{ queue: "default", succeeded: 2, timed: 2, runMs: 600 }]);
    // The tallies began with the database's migration, just now: the signal is known once they cover a whole slot.
    await waitUntil(async () => ((await store.queueActivity({ rateSeconds: 60, processingSeconds: 300 }))[0]?.rateSeconds ?? 0) >= 5, "the tallies to cover a slot");
  });

  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it("prints arrivals and completions a second, the backlog, the mean run and the workers recommended", async () => {
    // The test database is a copy of a template migrated when the suite began: the tallies may be younger or older
    // than the window, and the note about the shorter window shows only while they are younger.
    const covered = (await store.queueActivity({ rateSeconds: 60, processingSeconds: 300 }))[0]!.rateSeconds;
    const result = await cli(["status"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toMatch(/^Scaling signal \(last 60 s; headroom 1\.2, backlog drained within 60 s\):$/m);
    expect(result.stdout).toMatch(/^ {2}QUEUE\s+ARRIVAL\/S\s+COMPLETION\/S\s+BACKLOG\s+MEAN RUN\s+CONCURRENCY\s+WORKERS$/m);
    expect(result.stdout).toMatch(/^ {2}default\s+\d\.\d\d\s+\d\.\d\d\s+1\s+300 ms\s+4\s+1$/m);
    const note = /^ {2}default: rates over the last \d+\.\d s only, since the tallies began\.$/m;
    if (covered < 50) expect(result.stdout).toMatch(note);
    if (covered >= 60) expect(result.stdout).not.toMatch(note);
  });

  it("--json carries the same per queue, and the flags change the window and the formula", async () => {
    const result = await cli(["status", "--json", "--window", "120", "--headroom", "2", "--drain", "30"]);
    expect(result.code).toBe(0);
    const { signal } = JSON.parse(result.stdout) as { signal: { windowSeconds: number; headroom: number; drainSeconds: number; queues: Array<Record<string, number>> } };
    expect(signal).toMatchObject({ windowSeconds: 120, headroom: 2, drainSeconds: 30 });
    const [row] = signal.queues;
    expect(row).toMatchObject({ queue: "default", backlog: 1, meanProcessingSeconds: 0.3, concurrency: 4, recommendedWorkers: 1 });
    expect(row!.arrivalRate! * row!.windowSeconds!).toBeCloseTo(4, 6);
    expect(row!.completionRate! * row!.windowSeconds!).toBeCloseTo(2, 6);
    expect(row!.windowSeconds).toBeLessThanOrEqual(125);
  });

  it("a bad flag is a usage error naming the option", async () => {
    const result = await cli(["status", "--window", "0"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Invalid option "windowSeconds": must be a number from 5 to 900, got 0.');
  });

  it("without the tally table, says the signal is unavailable and which migration creates it", async () => {
    const rename = (from: string, to: string) => (dialect.name === "mysql" ? `RENAME TABLE ${from} TO ${to}` : `ALTER TABLE ${from} RENAME TO ${to}`);
    const raw = await dialect.store.raw(database.url);
    await raw.exec(rename("tasks_tallies", "tasks_tallies_away"));
    try {
      const result = await cli(["status"]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("Scaling signal: unavailable.");
      expect(result.stdout).toContain("20261224000000_queue_tallies");
    } finally {
      await raw.exec(rename("tasks_tallies_away", "tasks_tallies"));
      await raw.close();
    }
  });
});
