// SQLite's error table: result codes of better-sqlite3 (and of the Prisma adapter, which keeps them as originalCode),
// classified for the core: lasting or not, and what kind.

import { errorMessage } from "../../error-text.js";
import type { StoreProblem } from "../../store/store-problem.js";

/** The adapter's description of a driver error: under meta (a Prisma request error) or as the error's own cause. */
interface AdapterCause {
  originalCode?: unknown;
  originalMessage?: unknown;
}

/**
 * What a SQLite error means. SQLITE_BUSY passes (another writer holds the lock); a missing file or table lasts. Reads
 * better-sqlite3's errors, Prisma's request errors (meta.driverAdapterError) and the adapter's own DriverAdapterError
 * (a failed COMMIT surfaces as one, with its cause).
 */
export function classifySqliteError(error: unknown): StoreProblem {
  const e = (error ?? {}) as { code?: unknown; message?: unknown; cause?: AdapterCause; meta?: { driverAdapterError?: { cause?: AdapterCause } } };
  const cause = e.meta?.driverAdapterError?.cause ?? (typeof e.cause?.originalCode === "string" ? e.cause : undefined);
  const rawCode = cause?.originalCode ?? e.code;
  const code = typeof rawCode === "string" ? rawCode : "";
  const rawMessage = cause?.originalMessage ?? e.message;
  const message = typeof rawMessage === "string" ? rawMessage : errorMessage(error);
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) return { kind: "unreachable", lasting: false, message };
  if (code === "SQLITE_CANTOPEN" || code === "SQLITE_NOTADB") return { kind: "missing-database", lasting: true, message };
  if (code.startsWith("SQLITE_READONLY") || code === "SQLITE_PERM" || code === "SQLITE_AUTH") return { kind: "privilege", lasting: true, message };
  if (/^no such table/.test(message)) return { kind: "missing-table", lasting: true, message };
  return { kind: "other", lasting: false, message };
}
