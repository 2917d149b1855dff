// The end-to-end conformance suite can fail: a claim without its lock makes the worker-process case report a violation,
// on PostgreSQL and MySQL. (Every broken store fails the store-level suite on every dialect: store-broken.test.ts.)

import { describe, expect, it } from "vitest";
import { BROKEN_KINDS } from "./broken-stores.js";
import { CASES } from "./cases/index.js";
import { mysqlHarness, postgresHarness } from "./dialects.js";
import { ConformanceBed } from "./harness.js";

describe.each([postgresHarness, mysqlHarness])("broken stores fail the end-to-end conformance suite ($name)", (dialect) => {
  for (const testCase of CASES.filter((candidate) => candidate.catches !== undefined)) {
    const kind = testCase.catches!;
    it(`${kind}: "${testCase.name}" reports a violation`, { timeout: testCase.timeoutMs ?? 30_000 }, async () => {
      expect(BROKEN_KINDS).toContain(kind);
      const bed = await ConformanceBed.open(dialect, kind);
      try {
        await expect(testCase.run(bed)).rejects.toThrow(/^violation: /);
      } finally {
        await bed.close();
      }
    });
  }
});
