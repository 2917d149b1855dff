// Generates the Prisma clients the tests use, one per registered dialect: the test schema folder whose base.prisma
// (generator, datasource, business models) names one of the dialect's providers, plus the dialect's shipped task model
// copied beside it. The list comes from the dialect registry and the folders found (testSchemaFolders); a dialect
// without a test schema folder yet is skipped. `prisma generate` never runs the schema engine, so any existing file
// satisfies PRISMA_SCHEMA_ENGINE_BINARY.
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
  execFileSync(process.execPath, [join(root, "node_modules/prisma/build/index.js"), "generate", "--schema", join(root, folder)], {
    stdio: "inherit",
    cwd: root,
    env: { PRISMA_SCHEMA_ENGINE_BINARY: process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: "1", ...process.env },
  });
}
