// MySQL/MariaDB databases for the benchmark, on the tests' server (MYSQL_URL, else the local MariaDB): a template set up
// once per run and, since MySQL has no CREATE DATABASE … TEMPLATE, a fresh database given the same setup for every
// measurement. Everything created here is dropped by dropAll().

import { randomBytes } from "node:crypto";
import { mysqlDatabaseUrl, mysqlServerUrl, runMysqlScripts } from "../test/support/mysql-database.js";
import type { BenchDatabase, BenchDatabases } from "./databases.js";

export class MysqlDatabases implements BenchDatabases {
  private readonly created: string[] = [];
  /** How each template was made, replayed for its clones. */
  private readonly setups = new Map<string, (url: string) => Promise<void>>();

  /** Creates an empty database `ptq_benchtpl_<label>_<random>` and lets `setup` install a peer's schema into it. */
  async template(label: string, setup: (url: string) => Promise<void>): Promise<BenchDatabase> {
    const database = await this.create(`ptq_benchtpl_${label.replace(/-/g, "_")}_${randomBytes(3).toString("hex")}`);
    await setup(database.url);
    this.setups.set(database.name, setup);
    return database;
  }

  /** A fresh database with the template's setup applied again (the template itself is left alone). */
  async clone(template: BenchDatabase): Promise<BenchDatabase> {
    const setup = this.setups.get(template.name);
    if (!setup) throw new Error(`${template.name} is not a template made by this MysqlDatabases`);
    const database = await this.create(`ptq_benchrun_${randomBytes(4).toString("hex")}`);
    await setup(database.url);
    return database;
  }

  /** Drops one database made here. */
  async drop(database: BenchDatabase): Promise<void> {
    await runMysqlScripts(await mysqlServerUrl(), undefined, [`DROP DATABASE IF EXISTS \`${database.name}\``]);
    this.created.splice(this.created.indexOf(database.name), 1);
    this.setups.delete(database.name);
  }

  /** Drops every database made here (and connects to nothing when none was made). */
  async dropAll(): Promise<void> {
    const names = this.created.splice(0).reverse();
    if (names.length === 0) return;
    const server = await mysqlServerUrl();
    for (const name of names) await runMysqlScripts(server, undefined, [`DROP DATABASE IF EXISTS \`${name}\``]);
    this.setups.clear();
  }

  /** Creates `name`; its URL carries no session settings, so it runs with the server's defaults as an app would. */
  private async create(name: string): Promise<BenchDatabase> {
    const server = await mysqlServerUrl();
    await runMysqlScripts(server, undefined, [`CREATE DATABASE \`${name}\``]);
    this.created.push(name);
    return { name, url: mysqlDatabaseUrl(server, name, {}) };
  }
}
