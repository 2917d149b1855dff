// Where an app's Prisma schema is (prisma/schema.prisma, a multi-file prisma/schema/ folder, or ./schema.prisma) and
// its migrations folder beside it: `init` writes the migration there and `migrate` applies what it finds there.

import { existsSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** A schema file, or a folder of .prisma files. */
type SchemaLocation = { kind: "file" | "folder"; path: string };

/** The schema at `given` (relative to `cwd`), or the first of the usual places that exists; undefined when none does. */
export function locateSchema(cwd: string, given: string | undefined): SchemaLocation | undefined {
  const candidates = given ? [resolve(cwd, given)] : [join(cwd, "prisma", "schema.prisma"), join(cwd, "prisma", "schema"), join(cwd, "schema.prisma")];
  for (const path of candidates) {
    if (!existsSync(path)) continue;
    return { kind: statSync(path).isDirectory() ? "folder" : "file", path };
  }
  return undefined;
}

/** The migrations folder Prisma Migrate uses by default: "migrations" beside the schema file, or inside the schema folder. */
export function migrationsBeside(schema: SchemaLocation): string {
  return join(schema.kind === "file" ? dirname(schema.path) : schema.path, "migrations");
}
