// The store-level conformance suite can fail: each deliberately broken store (test/conformance/broken-stores.ts) fails
// at least one case of the area that checks what it breaks, on every dialect. PTQ_STORE_BROKEN=1 prints which cases.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROKEN_KINDS, BROKEN_STORES } from "./broken-stores.js";
import { StoreBed } from "./store/bed.js";
import { STORE_DIALECTS } from "./store/dialects.js";
import { AREAS } from "./store/index.js";

/** Longest one case may take on a broken store before it counts as failed (a broken store may make a case wait). */
const CASE_LIMIT_MS = 10_000;

describe.each(STORE_DIALECTS)("broken stores fail the store conformance suite: $name", (dialect) => {
  let bed: StoreBed;

  beforeAll(async () => {
    bed = await StoreBed.open(dialect);
  });

  afterAll(async () => {
    await bed?.close();
  });

  for (const kind of BROKEN_KINDS) {
    const { area, breaks } = BROKEN_STORES[kind];
    it(`${kind} (${breaks}): a case of the ${area} area fails`, { timeout: 120_000 }, async () => {
      bed.breakAs(kind);
      const cases = AREAS.find((candidate) => candidate.name === area)?.cases.filter((c) => c.applies(dialect)) ?? [];
      expect(cases.length, `the ${area} area has cases`).toBeGreaterThan(0);
      const caught: string[] = [];
      for (const testCase of cases) {
        await bed.reset();
        const started = Date.now();
        let timer: NodeJS.Timeout | undefined;
        const limit = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("timed out")), CASE_LIMIT_MS)));
        try {
          await Promise.race([testCase.run(bed), limit]);
        } catch (error) {
          caught.push(`${testCase.operation}: ${testCase.edge}${process.env.PTQ_STORE_BROKEN ? ` (${String(error).split("\n")[0]!.slice(0, 160)})` : ""}`);
        } finally {
          clearTimeout(timer);
          if (process.env.PTQ_STORE_BROKEN) console.log(`  ${Date.now() - started} ms ${testCase.edge}`);
        }
      }
      bed.breakAs(undefined);
      if (process.env.PTQ_STORE_BROKEN) console.log(`${dialect.name} ${kind} caught by:\n  ${caught.join("\n  ")}`);
      expect(caught.length, `no case of the ${area} area caught ${kind}`).toBeGreaterThan(0);
    });
  }
});
