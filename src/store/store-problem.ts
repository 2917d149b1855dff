// Driver errors as the core needs to know them, classified by each dialect's error table: does waiting help
// (unreachable, busy) or not (wrong credentials, no such database or table, no privilege, a server too old, rows
// written in a format the dialect's SQL cannot compare).

/** What went wrong, dialect-neutral. */
export type StoreProblemKind = "unreachable" | "credentials" | "missing-database" | "missing-table" | "privilege" | "server-too-old" | "incompatible" | "other";

/** A classified driver error. */
export interface StoreProblem {
  kind: StoreProblemKind;
  /** True when waiting and retrying cannot fix it: the configuration or the schema must change. */
  lasting: boolean;
  /** The driver's own message. */
  message: string;
  /** The dialect's detail about the fix, when it knows more than the kind says (e.g. the version found and needed). */
  detail?: string;
}
