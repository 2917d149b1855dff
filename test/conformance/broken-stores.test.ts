// The conformance suite can fail: each deliberately broken store (a claim without its lock, a completion without the
// lease guard, a leader lock that grants twice) makes the case that checks that guarantee report a violation. Run on
// the first dialect; the wrappers break every dialect alike.

import { describe, expect, it } from "vitest";
import { BROKEN_KINDS } from "./broken-stores.js";
import { CASES } from "./cases/index.js";
import { DIALECT_HARNESSES } from "./dialects.js";
import { ConformanceBed } from "./harness.js";

const dialect = DIALECT_HARNESSES[0]!;

describe(`broken stores fail the conformance suite (${dialect.name})`, () => {
  for (const kind of BROKEN_KINDS.filter((candidate) => CASES.some((c) => c.catches === candidate))) {
    const testCase = CASES.find((candidate) => candidate.catches === kind);
    it(`${kind}: "${testCase?.name}" reports a violation`, { timeout: testCase?.timeoutMs ?? 30_000 }, async () => {
      expect(testCase, `no case catches ${kind}`).toBeDefined();
      const bed = await ConformanceBed.open(dialect, kind);
      try {
        await expect(testCase!.run(bed)).rejects.toThrow(/^violation: /);
      } finally {
        await bed.close();
      }
    });
  }
});
