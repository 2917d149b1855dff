// Fresh databases for the benchmark: one template per peer, migrated once, and a clone of it for every scenario,
// so no peer measures on a table another run has bloated. Everything created here is dropped by dropAll().

import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import pg from "pg";

const root = fileURLToPath(new URL("..", import.meta.url));

/** The business table every scenario writes beside its task: the tests' Report model. */
export const BUSINESS_SQL = readFileSync(`${root}test/sql/business.sql`, "utf8");

export interface BenchDatabase {
  name: string;
  url: string;
}

/** Where a peer's databases come from: a template made once per run, a fresh clone of it per measurement. */
export interface BenchDatabases {
  template(label: string, setup: (url: string) => Promise<void>): Promise<BenchDatabase>;
  clone(template: BenchDatabase): Promise<BenchDatabase>;
  drop(database: BenchDatabase): Promise<void>;
  dropAll(): Promise<void>;
}

/** Creates and drops the bench's databases on one PostgreSQL server. */
export class Databases implements BenchDatabases {
  private readonly created: string[] = [];

  constructor(readonly serverUrl: string) {}

  /** Creates an empty database `ptq_benchtpl_<label>_<random>` and lets `setup` install a peer's schema into it. */
  async template(label: string, setup: (url: string) => Promise<void>): Promise<BenchDatabase> {
    const database = await this.create(`ptq_benchtpl_${label.replace(/-/g, "_")}`);
    await setup(database.url);
    return database;
  }

  /** A fresh copy of `template` (which must have no open connections). */
  async clone(template: BenchDatabase): Promise<BenchDatabase> {
    return this.create(`ptq_benchrun_${randomBytes(4).toString("hex")}`, template.name);
  }

  /** Drops one database made here, closing whatever still connects to it. */
  async drop(database: BenchDatabase): Promise<void> {
    await this.run(`DROP DATABASE IF EXISTS "${database.name}" WITH (FORCE)`);
    this.created.splice(this.created.indexOf(database.name), 1);
  }

  /** Drops every database made here. */
  async dropAll(): Promise<void> {
    for (const name of this.created.splice(0).reverse()) await this.run(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }

  /** Sets a server parameter for every new session of one database made here (e.g. synchronous_commit = off). */
  async setting(database: BenchDatabase, name: "synchronous_commit", value: "on" | "off"): Promise<void> {
    await this.run(`ALTER DATABASE "${database.name}" SET ${name} = ${value}`);
  }

  urlOf(name: string): string {
    const url = new URL(this.serverUrl);
    url.pathname = `/${name}`;
    return url.toString();
  }

  private async create(prefix: string, template?: string): Promise<BenchDatabase> {
    const name = template ? prefix : `${prefix}_${randomBytes(3).toString("hex")}`;
    await this.run(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ""}`);
    this.created.push(name);
    return { name, url: this.urlOf(name) };
  }

  private async run(statement: string): Promise<void> {
    const client = new pg.Client({ connectionString: this.serverUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  }
}

/** Runs SQL text (several statements allowed) on `url`. */
export async function runSql(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
