// Generates the tests' Prisma clients, one per registered dialect: its test schema folder (test/prisma*, found by the
// provider of its base.prisma) with the dialect's shipped task model copied beside it; a dialect without one is skipped.
import { execFileSync } from "node:child_process";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DIALECTS } from "../src/dialects/index.js";
import { testSchemaFolder } from "./test-schema-folders.js";

const root = fileURLToPath(new URL("..", import.meta.url));

for (const dialect of DIALECTS) {
  const folder = testSchemaFolder(root, dialect);
  if (folder === undefined) continue;
  copyFileSync(join(root, dialect.schemaFiles.model), join(root, folder, "task.prisma"));
  // `prisma generate` never runs the schema engine, so any existing file satisfies PRISMA_SCHEMA_ENGINE_BINARY.
  execFileSync(process.execPath, [join(root, "node_modules/prisma/build/index.js"), "generate", "--schema", join(root, folder)], {
    stdio: "inherit",
    cwd: root,
    env: { PRISMA_SCHEMA_ENGINE_BINARY: process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: "1", ...process.env },
  });
}
