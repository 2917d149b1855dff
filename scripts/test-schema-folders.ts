// Finds a dialect's test schema folder: the folder test/prisma* whose base.prisma datasource names one of the dialect's
// Prisma providers. Used by the client generator and by the registration test.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Dialect } from "../src/store/dialect.js";

/** The folder (relative to `root`) of `dialect`'s test schema, or undefined when it has none. */
export function testSchemaFolder(root: string, dialect: Pick<Dialect, "prismaProviders">): string | undefined {
  const folders = readdirSync(join(root, "test"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && /^prisma(-|$)/.test(entry.name))
    .map((entry) => join("test", entry.name))
    .sort();
  return folders.find((folder) => {
    const base = join(root, folder, "base.prisma");
    if (!existsSync(base)) return false;
    const provider = /datasource\s+\w+\s*\{[^}]*?provider\s*=\s*"([^"]+)"/.exec(readFileSync(base, "utf8"))?.[1];
    return provider !== undefined && dialect.prismaProviders.includes(provider);
  });
}
