// The quick start on a machine with no server at all: `npm run demo` inside a network namespace where nothing
// answers on any port runs on the embedded default (a SQLite file, wake-ups in-process) and ends with the verdict.

import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const canUnshare = spawnSync("unshare", ["-n", "true"]).status === 0;

it.skipIf(!canUnshare)("runs on a SQLite file when nothing answers on any port, and every guarantee holds", { timeout: 180_000 }, () => {
  const env: NodeJS.ProcessEnv = { ...process.env, DEMO_TRANSACTIONS: "150" };
  delete env.DATABASE_URL;
  delete env.AMQP_URL;
  const result = spawnSync("unshare", ["-n", "bash", "-c", "ip link set lo up && npm run demo --silent"], { cwd: root, env, encoding: "utf8" });
  const output = `${result.stdout}\n${result.stderr}`;
  expect(output).toMatch(/Mode: SQLite file .*ptq_demo\.db \(the embedded default\); wake-ups: in-process \(no broker answered\)\. Why: no database answers/);
  expect(output).toMatch(/PASS {2}committed → ran once {7}\d+ tasks have exactly one successful run/);
  expect(output).toContain("All guarantees held.");
  expect(result.status, output.slice(-2000)).toBe(0);
});
