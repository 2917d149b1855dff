// The end-to-end conformance suite can fail: a deliberately broken store (a claim without its lock) makes the case
// that checks that guarantee with worker processes report a violation, on PostgreSQL and on MySQL. (Every broken
// store fails the store-level suite too, on every dialect: test/conformance/store-broken.test.ts.)

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
