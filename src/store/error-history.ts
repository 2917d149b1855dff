// A task's earlier errors: the bounded history each dialect keeps in the `errors` JSON column (the last
// ERROR_HISTORY_LIMIT failed attempts, oldest first), and its reading from the JSON the database returns.

/** One failed attempt, as the history keeps it. */
export interface TaskErrorEntry {
  /** The attempt that failed (1 = the first run). */
  attempt: number;
  /** The error text, as last_error held it. */
  error: string;
  /** When the failure was recorded (the database's clock). */
  at: Date;
}

/**
 * How many failed attempts a task keeps in `errors`. The oldest entry is dropped when a new one would exceed it, so
 * a task that fails forever costs at most this many error texts.
 */
export const ERROR_HISTORY_LIMIT = 10;

/** The `errors` column as the store returns it: parsed JSON (or its text), NULL for a task that never failed. */
export function toErrorHistory(value: unknown): TaskErrorEntry[] {
  const parsed = typeof value === "string" ? (JSON.parse(value) as unknown) : value;
  if (!Array.isArray(parsed)) return [];
  return parsed.map((entry: { attempt?: unknown; error?: unknown; at?: unknown }) => ({
    attempt: Number(entry.attempt),
    error: String(entry.error),
    at: new Date(String(entry.at)),
  }));
}
