// The store-level suite as a vitest describe per dialect: every case of every area (test/conformance/store/), one
// database per dialect, emptied between cases; then a check that the cases called every member of the Store interface.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StoreBed } from "./bed.js";
import type { StoreDialect } from "./dialects.js";
import { AREAS } from "./index.js";
import { MemberRecord } from "./members.js";

export function describeStoreSuite(dialects: readonly StoreDialect[]): void {
  for (const dialect of dialects) describeDialect(dialect);
}

function describeDialect(dialect: StoreDialect): void {
  describe(`store conformance: ${dialect.name}${dialect.through ? ` through ${dialect.through}` : ""}`, () => {
    const record = new MemberRecord();
    let bed: StoreBed;

    beforeAll(async () => {
      bed = await StoreBed.open(dialect, { record });
    });

    afterAll(async () => {
      await bed?.close();
    });

    for (const { name, cases } of AREAS) {
      describe(name, () => {
        for (const operation of new Set(cases.map((c) => c.operation))) {
          describe(operation, () => {
            for (const testCase of cases.filter((c) => c.operation === operation)) {
              it.skipIf(!testCase.applies(dialect))(testCase.edge, async () => {
                record.area = name;
                await bed.reset();
                await testCase.run(bed);
              });
            }
          });
        }
      });
    }

    it("called every member of the Store interface", () => {
      record.area = "(check)";
      const table = record.table().map(([member, areas]) => `${member}: ${areas.join(", ") || "-"}`);
      if (process.env.PTQ_STORE_MEMBERS) console.log(`${dialect.name}\n  ${table.join("\n  ")}`);
      expect(record.unused(), `members no case called on ${dialect.name}`).toEqual([]);
    });
  });
}
