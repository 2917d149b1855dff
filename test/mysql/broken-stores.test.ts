// The conformance suite can fail on MySQL too: each deliberately broken store (a claim without its lock, a completion
// without the lease guard, a leader lock that grants twice), wrapped around the MySQL store, makes the case that checks
// that guarantee report a violation. (test/conformance/broken-stores.test.ts does the same on the first dialect.)

import { describe, expect, it } from "vitest";
import { BROKEN_KINDS } from "../conformance/broken-stores.js";
import { CASES } from "../conformance/cases/index.js";
import { mysqlHarness } from "../conformance/dialects.js";
import { ConformanceBed } from "../conformance/harness.js";

describe("broken stores fail the conformance suite (mysql)", () => {
  for (const kind of BROKEN_KINDS) {
    const testCase = CASES.find((candidate) => candidate.catches === kind);
    it(`${kind}: "${testCase?.name}" reports a violation`, { timeout: testCase?.timeoutMs ?? 30_000 }, async () => {
      expect(testCase, `no case catches ${kind}`).toBeDefined();
      const bed = await ConformanceBed.open(mysqlHarness, kind);
      try {
        await expect(testCase!.run(bed)).rejects.toThrow(/^violation: /);
      } finally {
        await bed.close();
      }
    });
  }
});
