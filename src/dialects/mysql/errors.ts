// MySQL's and MariaDB's error table: server error numbers, the mariadb driver's connection errors and Node's socket
// errors, classified for the core (lasting or not, and what kind). Errors that reach us through Prisma carry the
// server's number in meta.driverAdapterError.cause.originalCode.

import type { StoreProblem, StoreProblemKind } from "../../store/store-problem.js";

/** Server errors that waiting cannot fix: the configuration or the schema must change. */
const LASTING: Record<number, StoreProblemKind> = {
  1045: "credentials", // ER_ACCESS_DENIED_ERROR: wrong user or password
  1698: "credentials", // ER_ACCESS_DENIED_NO_PASSWORD_ERROR
  1049: "missing-database", // ER_BAD_DB_ERROR: unknown database
  1146: "missing-table", // ER_NO_SUCH_TABLE
  1044: "privilege", // ER_DBACCESS_DENIED_ERROR: no access to that database (also what a missing one looks like to a user without rights)
  1142: "privilege", // ER_TABLEACCESS_DENIED_ERROR: SELECT/INSERT/UPDATE/DELETE command denied
  1143: "privilege", // ER_COLUMNACCESS_DENIED_ERROR
  1227: "privilege", // ER_SPECIFIC_ACCESS_DENIED_ERROR
};

/** Server errors that mean "cannot talk to it now": too many connections, shutting down. */
const UNREACHABLE_ERRNO = new Set([1040, 1053, 1203, 1129]);

/**
 * Node socket errors, and the mariadb driver's own connection errors (its numbers from 45000: connection refused, closed,
 * timed out, pool acquisition timed out).
 */
function unreachable(code: string | undefined, errno: number | undefined): boolean {
  if (code !== undefined && /^E[A-Z]+$/.test(code)) return true;
  if (errno !== undefined && UNREACHABLE_ERRNO.has(errno)) return true;
  return errno !== undefined && errno >= 45000 && errno < 46000 && /CONN|SOCKET|CLOSE|TIMEOUT|POOL/.test(code ?? "");
}

/** What a mariadb (or Prisma-wrapped MySQL) error means. Anything unknown counts as passing: waiting may help. */
export function classifyMysqlError(error: unknown): StoreProblem {
  const { errno, code, message } = errorFields(error);
  const kind = errno === undefined ? undefined : LASTING[errno];
  if (kind) return { kind, lasting: true, message };
  return { kind: unreachable(code, errno) ? "unreachable" : "other", lasting: false, message };
}

/**
 * The server's error number, the driver's (or Node's) code and the message, also when Prisma wrapped the error. A pool
 * that could not open a connection in time (45028) carries the connection's own error as its cause: that one tells.
 */
function errorFields(error: unknown): { errno: number | undefined; code: string | undefined; message: string } {
  const outer = error as { errno?: unknown; cause?: unknown } | null;
  if (outer?.errno === 45028 && typeof outer.cause === "object" && outer.cause !== null) return errorFields(outer.cause);
  const e = (error ?? {}) as {
    errno?: unknown;
    code?: unknown;
    message?: unknown;
    cause?: { code?: unknown; errno?: unknown };
    meta?: { code?: unknown; driverAdapterError?: { cause?: { originalCode?: unknown; code?: unknown } } };
  };
  const adapter = e.meta?.driverAdapterError?.cause;
  const rawErrno = e.errno ?? adapter?.originalCode ?? adapter?.code ?? e.meta?.code;
  const errno = typeof rawErrno === "number" ? rawErrno : typeof rawErrno === "string" && /^\d+$/.test(rawErrno) ? Number(rawErrno) : undefined;
  const rawCode = typeof e.code === "string" ? e.code : typeof e.cause?.code === "string" ? e.cause.code : undefined;
  return { errno, code: rawCode, message: typeof e.message === "string" ? e.message : String(error) };
}
