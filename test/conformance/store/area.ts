// The shape of the store-level suite: an area (claim, outcomes, …) groups its cases by Store operation, one case per
// edge. A case is a plain async function on a bed that throws when the store breaks the guarantee it checks.

import type { StoreBed } from "./bed.js";
import type { StoreDialect } from "./dialects.js";
import type { StoreMember } from "./members.js";

export type EdgeCase = (bed: StoreBed) => Promise<void>;

/** An edge that only some dialects have (a server to reach, database notifications): skipped, and said so, elsewhere. */
export interface DialectEdge {
  when: (dialect: StoreDialect) => boolean;
  run: EdgeCase;
}

/** One edge of one operation. */
export interface StoreCase {
  area: string;
  operation: StoreMember;
  edge: string;
  run: EdgeCase;
  /** False for a dialect the edge does not apply to. */
  applies: (dialect: StoreDialect) => boolean;
}

/** An area's cases: per operation, per edge. */
export interface StoreArea {
  name: string;
  cases: StoreCase[];
}

/** Declares an area from `{ operation: { edge: case } }`, in the order written. */
export function area(name: string, operations: Partial<Record<StoreMember, Record<string, EdgeCase | DialectEdge>>>): StoreArea {
  const cases: StoreCase[] = [];
  for (const [operation, edges] of Object.entries(operations) as Array<[StoreMember, Record<string, EdgeCase | DialectEdge>]>) {
    for (const [edge, value] of Object.entries(edges)) {
      const { run, when } = typeof value === "function" ? { run: value, when: () => true } : value;
      cases.push({ area: name, operation, edge, run, applies: when });
    }
  }
  return { name, cases };
}
