// `npm run soak -- --minutes 10 [--seed N] [--workers 3]`: the long soak on the local services, in its own database.
// Prints the fault log, the summary table and any violation, writes them to .artifacts/soak-latest.md; exits 1 when
// an invariant broke or the soak did less than its length asks for.

import { writeFileSync, mkdirSync } from "node:fs";
import { parseArgs } from "node:util";
import { onServer, databaseUrlFor } from "../support/database.js";
import { applySchema } from "../support/schema.js";
import { resolveServices } from "../support/services.js";
import { runSoak } from "./soak.js";

const { values } = parseArgs({
  options: { minutes: { type: "string", default: "10" }, seed: { type: "string" }, workers: { type: "string", default: "3" } },
});
const seed = values.seed ? Number(values.seed) : Date.now() % 1_000_000;
const services = await resolveServices();
const name = `ptq_soak_${seed}`;
await onServer(services.databaseUrl, [`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`, `CREATE DATABASE "${name}"`]);
const databaseUrl = databaseUrlFor(services.databaseUrl, name);
await applySchema(databaseUrl);
const started = Date.now();
const minutes = Number(values.minutes);
// What the soak must at least do, in proportion to its length: 10 minutes ask for 20 of everything.
const least = Math.max(1, Math.round(2 * minutes));
const lines: string[] = [];
const result = await runSoak({
  databaseUrl,
  amqpUrl: services.amqpUrl,
  seed,
  seconds: minutes * 60,
  workers: Number(values.workers),
  faultEveryMs: 1200,
  minimums: {
    committedTasks: 500 * least,
    retries: 50 * least,
    killsMidTask: least,
    rerunsAfterKill: least,
    recoveries: least,
    earlyWakeups: least,
    faultsPerKind: least,
  },
  print: (line) => {
    lines.push(line);
    process.stdout.write(`${line}\n`);
  },
});
await onServer(services.databaseUrl, [`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`]);
await services.stop();
mkdirSync(".artifacts", { recursive: true });
const reruns = lines.filter((line) => line.startsWith("  re-run after kill:")).map((line) => `- ${line.trim()}`);
const violations = result.violations.map((violation) => `- ${violation}`);
writeFileSync(
  ".artifacts/soak-latest.md",
  [
    `Soak of ${values.minutes} min, seed ${seed}, ${new Date(started).toISOString()}: ${result.violations.length === 0 ? "PASS" : "FAIL"}`,
    "",
    result.table,
    "",
    `Violations (${violations.length}):`,
    ...violations,
    "",
    `Tasks that ran again because the worker running them was SIGKILLed (${reruns.length}, allowed):`,
    ...reruns,
    "",
  ].join("\n"),
);
console.log(result.violations.length === 0 ? "soak: PASS" : "soak: FAIL");
process.exit(result.violations.length === 0 ? 0 : 1);
