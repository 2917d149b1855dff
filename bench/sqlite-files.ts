// SQLite databases for the benchmark: a template file migrated once per run and a copy of it for every measurement,
// all in one temporary folder that dropAll() removes.

import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { BenchDatabase, BenchDatabases } from "./databases.js";

export class SqliteFiles implements BenchDatabases {
  private dir: string | undefined;

  private folder(): string {
    return (this.dir ??= mkdtempSync(join(tmpdir(), "ptq-bench-sqlite-")));
  }

  async template(label: string, setup: (url: string) => Promise<void>): Promise<BenchDatabase> {
    const name = `template-${label}.db`;
    const path = join(this.folder(), name);
    await setup(`file:${path}`);
    return { name, url: `file:${path}` };
  }

  /** A copy of the template's file, with its WAL when one was left (nothing may write the template meanwhile). */
  async clone(template: BenchDatabase): Promise<BenchDatabase> {
    const name = `run-${randomBytes(4).toString("hex")}.db`;
    copyFileSync(join(this.folder(), template.name), join(this.folder(), name));
    const wal = join(this.folder(), `${template.name}-wal`);
    if (existsSync(wal)) copyFileSync(wal, join(this.folder(), `${name}-wal`));
    return { name, url: `file:${join(this.folder(), name)}` };
  }

  async drop(database: BenchDatabase): Promise<void> {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(join(this.folder(), `${database.name}${suffix}`), { force: true });
  }

  async dropAll(): Promise<void> {
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }
}
