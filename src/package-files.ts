// Finds files shipped inside this package (the Prisma model, the SQL migration) from source or from dist alike.

import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let root: string | undefined;

/** The directory holding this package's package.json. */
export function packageRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, "utf8")).name === "prisma-task-queue") return (root = dir);
    const parent = dirname(dir);
    if (parent === dir) throw new Error("prisma-task-queue: cannot find the package's own package.json above " + import.meta.url);
    dir = parent;
  }
}

/** The shipped Prisma model of the task table. */
export function taskModelSource(): string {
  return readFileSync(join(packageRoot(), "prisma", "task.prisma"), "utf8");
}

/** The shipped SQL migration that creates the task table. */
export function taskMigrationSource(): string {
  return readFileSync(join(packageRoot(), "prisma", "migrations", "20261121000000_task_queue", "migration.sql"), "utf8");
}
