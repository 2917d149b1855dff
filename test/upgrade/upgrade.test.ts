// Upgrading the schema with tasks in flight: the shipped migrations as "older", a no-op migration as "newer" (the
// harness's own proof; a real schema change brings its real migration here). Every task that was pending, delayed or
// running finishes exactly once under today's worker; dead and succeeded tasks stay as they were.

import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";
import { upgradeWithTasksInFlight, type Migration } from "./upgrade-harness.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const runLog = mkdtempSync(join(tmpdir(), "ptq-upgrade-"));

afterAll(() => rmSync(runLog, { recursive: true, force: true }));

function migrationsIn(dir: string): Migration[] {
  return readdirSync(dir)
    .filter((name) => /^\d{14}_/.test(name))
    .sort()
    .map((name) => ({ name, dir }));
}

it("applies a newer migration over tasks in every state, and today's worker finishes them", { timeout: 60_000 }, async () => {
  const shipped = migrationsIn(join(root, "prisma", "migrations"));
  const newer = migrationsIn(join(root, "test", "upgrade", "fixtures", "postgresql"));
  expect(shipped.length).toBeGreaterThan(0);
  const result = await upgradeWithTasksInFlight(shipped, newer, runLog);
  expect(result.applied).toEqual([...shipped, ...newer].map((migration) => migration.name));
  expect(result.final).toEqual({
    pending: "succeeded",
    delayed: "succeeded",
    running: "succeeded",
    orphaned: "succeeded",
    dead: "dead",
    succeeded: "succeeded",
  });
  expect(result.runs).toEqual({ pending: 1, delayed: 1, running: 1, orphaned: 1, dead: 0, succeeded: 0 });
});
