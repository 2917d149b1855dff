// Which server answers (MySQL or MariaDB, and which version) from its VERSION() string, whether it can run the queue
// (the claim needs FOR UPDATE SKIP LOCKED, the batch insert JSON_TABLE), and how it limits a statement's time.

import type { StoreProblem } from "../../store/store-problem.js";

/** A server as VERSION() describes it: "8.0.36", "5.7.44-log", "10.11.19-MariaDB-0+deb12u1". */
interface ServerVersion {
  flavor: "mysql" | "mariadb";
  major: number;
  minor: number;
  patch: number;
  /** The string as the server gave it. */
  text: string;
}

/**
 * The oldest release of each flavor this dialect runs on: MySQL 8.0.4 (SKIP LOCKED came in 8.0.1, JSON_TABLE in
 * 8.0.4; both were development releases before 8.0.11, the first GA), MariaDB 10.6.0 (SKIP LOCKED and JSON_TABLE).
 */
const MIN_VERSION = {
  mysql: { major: 8, minor: 0, patch: 4, name: "MySQL 8.0.4" },
  mariadb: { major: 10, minor: 6, patch: 0, name: "MariaDB 10.6" },
} as const;

/** Reads VERSION(); undefined when it does not start with a version number. */
export function parseServerVersion(text: string): ServerVersion | undefined {
  const match = /^(\d+)\.(\d+)\.(\d+)/.exec(text.trim());
  if (!match) return undefined;
  return {
    flavor: /mariadb/i.test(text) ? "mariadb" : "mysql",
    major: Number(match[1]),
    minor: Number(match[2]),
    patch: Number(match[3]),
    text,
  };
}

/** The problem of a server this dialect cannot run on, naming the version found and the one needed; else undefined. */
export function serverVersionProblem(text: string): StoreProblem | undefined {
  const version = parseServerVersion(text);
  if (!version) {
    return {
      kind: "server-too-old",
      lasting: true,
      message: `the server's version ${JSON.stringify(text)} is not one prisma-task-queue can read`,
      detail: `prisma-task-queue needs ${MIN_VERSION.mysql.name} or later, or ${MIN_VERSION.mariadb.name} or later`,
    };
  }
  const needed = MIN_VERSION[version.flavor];
  if (compare(version, needed) >= 0) return undefined;
  const found = `${version.flavor === "mariadb" ? "MariaDB" : "MySQL"} ${version.major}.${version.minor}.${version.patch}`;
  return {
    kind: "server-too-old",
    lasting: true,
    message: `${found} is too old (VERSION() says ${JSON.stringify(text)})`,
    detail:
      `prisma-task-queue needs ${needed.name} or later (found ${found}): the claim uses SELECT … FOR UPDATE SKIP LOCKED and ` +
      `the batch insert JSON_TABLE, which older servers lack; upgrade the server`,
  };
}

/**
 * A rewrite that makes a statement carry a server-side time limit of `ms` on this server: MariaDB runs any statement
 * under `SET STATEMENT max_statement_time = <seconds> FOR`; MySQL honours the MAX_EXECUTION_TIME hint on a SELECT (and
 * limits nothing else, as its max_execution_time does). Per statement rather than per session, so no driver init
 * statement is needed.
 */
export function statementLimiter(text: string, ms: number): (sql: string) => string {
  const limit = Math.max(1, Math.round(ms));
  if (parseServerVersion(text)?.flavor === "mariadb") {
    const prefix = `SET STATEMENT max_statement_time = ${(limit / 1000).toFixed(3)} FOR `;
    return (sql) => prefix + sql;
  }
  return (sql) => sql.replace(/^(\s*SELECT)\b/i, `$1 /*+ MAX_EXECUTION_TIME(${limit}) */`);
}

function compare(a: { major: number; minor: number; patch: number }, b: { major: number; minor: number; patch: number }): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}
