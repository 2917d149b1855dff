// The conformance suite: every case against every dialect, each case on a fresh database. One suite, written once;
// a dialect is done when it passes it (River's riverdrivertest is the model).

import { describe, it } from "vitest";
import { CASES } from "./cases/index.js";
import { DIALECT_HARNESSES } from "./dialects.js";
import { ConformanceBed } from "./harness.js";

for (const dialect of DIALECT_HARNESSES) {
  describe(`conformance: ${dialect.name}`, () => {
    for (const testCase of CASES) {
      it(testCase.name, { timeout: testCase.timeoutMs ?? 30_000 }, async () => {
        const bed = await ConformanceBed.open(dialect);
        try {
          await testCase.run(bed);
        } finally {
          await bed.close();
        }
      });
    }
  });
}
