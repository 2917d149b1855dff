// Finds files shipped inside this package (its package.json, each dialect's Prisma model and SQL migrations) from source
// or from dist alike.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PackageFilesMissingError } from "./errors.js";

let root: string | undefined;

/** The directory holding this package's package.json. */
function packageRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name === "prisma-task-queue") return (root = dir);
    const parent = dirname(dir);
    if (parent === dir) throw new PackageFilesMissingError(`cannot find the package's own package.json above ${import.meta.url}`);
    dir = parent;
  }
}

/** This package's version, from its own package.json (never the app's). */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version: string }).version;
}

/** The shipped Prisma model of the task table, from a dialect's schemaFiles.model. */
export function taskModelSource(schemaFiles: { model: string }): string {
  return readFileSync(join(packageRoot(), schemaFiles.model), "utf8");
}

/** The shipped SQL migrations of a dialect, oldest first: each folder's name and its migration.sql. */
export function taskMigrationSources(schemaFiles: { migrations: string }): Array<{ name: string; sql: string }> {
  const dir = join(packageRoot(), schemaFiles.migrations);
  return readdirSync(dir)
    .filter((name) => /^\d{14}_/.test(name))
    .sort()
    .map((name) => ({ name, sql: readFileSync(join(dir, name, "migration.sql"), "utf8") }));
}
