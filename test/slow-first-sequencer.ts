// Vitest's order, with the files that take longest started first. Vitest runs the longest first by itself once it has
// timed a run (its cache), but a fresh clone (CI) has no cache and it then starts the largest files first, which left
// the conformance files, small files of long cases, to run alone at the end of the parallel lanes.

import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** The slowest files of `npm test` (30–90 s each on a 2-core machine), slowest first. */
const SLOWEST = [
  "test/cli/operator.test.ts",
  "test/conformance/conformance.test.ts",
  "test/conformance/store-broken.test.ts",
  "test/cli/usage.test.ts",
  "test/schedules/firing.test.ts",
  "test/upgrade/upgrade.test.ts",
];

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const index = SLOWEST.indexOf(relative(spec.project.config.root, spec.moduleId).replaceAll("\\", "/"));
      return index === -1 ? SLOWEST.length : index;
    };
    // Within a project only (the sort's first key), so "together" still runs before "alone".
    return sorted
      .map((spec, position) => ({ spec, position }))
      .sort((a, b) => {
        if (a.spec.project.name !== b.spec.project.name) return a.position - b.position;
        return rank(a.spec) - rank(b.spec) || a.position - b.position;
      })
      .map(({ spec }) => spec);
  }
}
