// A database per test file, cloned from the template that global setup migrated once.

import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";

/** URL of `name` on the same server as `serverUrl`. */
export function databaseUrlFor(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs statements on the server's maintenance database. */
export async function onServer(serverUrl: string, statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** A fresh database with the task table and the business tables, dropped by `drop()`. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = inject("databaseUrl");
  const template = inject("templateDatabase");
  const name = `ptq_${randomBytes(5).toString("hex")}`;
  await onServer(serverUrl, [`CREATE DATABASE "${name}" TEMPLATE "${template}"`]);
  return {
    name,
    url: databaseUrlFor(serverUrl, name),
    drop: () => dropDatabase(serverUrl, name),
  };
}

/**
 * Drops `name` once its sessions are gone (at most 2 s, then by force). pg's pool.end() resolves before its sockets
 * close, and a session that DROP … WITH (FORCE) terminates while it closes raises an error no listener catches.
 */
export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const deadline = Date.now() + 2000;
    for (;;) {
      const { rows } = await client.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1", [name]);
      if (rows[0]!.n === 0 || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
