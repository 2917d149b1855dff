// PostgreSQL's error table: SQLSTATE codes and Node's socket errors, classified for the core (lasting or not, and
// what kind), plus the oldest server version this dialect runs on.

import type { StoreProblem, StoreProblemKind } from "../../store/store-problem.js";

/** The oldest PostgreSQL this dialect is tested and documented for. */
const MIN_SERVER_VERSION_NUM = 130000;

const LASTING: Record<string, StoreProblemKind> = {
  "28P01": "credentials", // invalid_password
  "28000": "credentials", // invalid_authorization_specification
  "3D000": "missing-database", // invalid_catalog_name
  "42P01": "missing-table", // undefined_table
  "3F000": "missing-table", // invalid_schema_name
  "42501": "privilege", // insufficient_privilege
};

/** What a pg (or Prisma-wrapped PostgreSQL) error means. Anything unknown counts as passing: waiting may help. */
export function classifyPgError(error: unknown): StoreProblem {
  const { code, message } = errorFields(error);
  const kind = code === undefined ? undefined : LASTING[code];
  if (kind) return { kind, lasting: true, message };
  return { kind: code !== undefined && /^E[A-Z]+$/.test(code) ? "unreachable" : "other", lasting: false, message };
}

/**
 * The problem of a server this dialect cannot serve, or undefined: one older than MIN_SERVER_VERSION_NUM, or another
 * database that speaks PostgreSQL's protocol (CockroachDB answers a postgresql:// URL; its version() says so).
 */
export function serverVersionProblem(versionNum: number, version: string, banner = ""): StoreProblem | undefined {
  const other = /\b(CockroachDB|YugabyteDB)\b/i.exec(banner);
  if (other) {
    return {
      kind: "incompatible",
      lasting: true,
      message: `the server at this postgresql:// URL is ${other[1]} (${banner.split("\n")[0]!.slice(0, 120)})`,
      detail: `the PostgreSQL dialect needs PostgreSQL itself, 13 or later: ${other[1]} differs in its locking (SKIP LOCKED, advisory locks), so it is not supported (docs/databases.md lists the databases that are)`,
    };
  }
  if (versionNum >= MIN_SERVER_VERSION_NUM) return undefined;
  return {
    kind: "server-too-old",
    lasting: true,
    message: `PostgreSQL ${version} is too old`,
    detail: `prisma-task-queue needs PostgreSQL 13 or later (found ${version}); upgrade the server`,
  };
}

/** The SQLSTATE (or Node error code) and message of a pg error, also when Prisma wrapped it. */
function errorFields(error: unknown): { code: string | undefined; message: string } {
  const e = (error ?? {}) as { code?: unknown; message?: unknown; meta?: { code?: unknown; driverAdapterError?: { cause?: { originalCode?: unknown } } } };
  const original = e.meta?.driverAdapterError?.cause?.originalCode ?? e.meta?.code;
  const code = typeof original === "string" ? original : typeof e.code === "string" ? e.code : undefined;
  return { code, message: typeof e.message === "string" ? e.message : String(error) };
}
