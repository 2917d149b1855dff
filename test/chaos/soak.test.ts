// The short soak inside `npm test`: every fault kind at least once while real work flows, then the guarantees
// checked from the database and the run log. `npm run soak -- --minutes 10` is the long one.

import { afterAll, beforeAll, expect, it } from "vitest";
import { inject } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { FAULT_KINDS } from "./soak-faults.js";
import { runSoak } from "./soak.js";

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  await db?.drop();
});

it("keeps every guarantee while processes die, connections break and wake-ups go astray", { timeout: 300_000 }, async () => {
  const seed = Number(process.env.SOAK_SEED ?? Date.now() % 1_000_000);
  const lines: string[] = [];
  const result = await runSoak({
    databaseUrl: db.url,
    amqpUrl: inject("amqpUrl"),
    seed,
    seconds: Number(process.env.SOAK_SECONDS ?? 40),
    faultEveryMs: 1000,
    transactionsPerSecond: process.env.SOAK_RATE ? Number(process.env.SOAK_RATE) : undefined,
    leaseMs: process.env.SOAK_LEASE_MS ? Number(process.env.SOAK_LEASE_MS) : undefined,
    // A short soak that did not kill a worker mid-task, see a re-run after it, a recovery, an early wake-up and every
    // fault kind has not tested what it claims, so it fails.
    minimums: { committedTasks: 200, retries: 20, killsMidTask: 1, rerunsAfterKill: 1, recoveries: 1, earlyWakeups: 1, faultsPerKind: 1 },
    print: (line) => lines.push(line),
  });
  if (result.violations.length > 0 || process.env.SOAK_VERBOSE) console.log(lines.join("\n"));
  expect(result.violations, `seed ${seed}`).toEqual([]);
  for (const kind of FAULT_KINDS) expect(result.faults[kind], `${kind} injected (seed ${seed})`).toBeGreaterThanOrEqual(1);
});
