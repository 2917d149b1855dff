// Generates the Prisma client the tests use, from test/prisma/base.prisma plus the shipped prisma/task.prisma.
// `prisma generate` never runs the schema engine, so any existing file satisfies PRISMA_SCHEMA_ENGINE_BINARY.
import { copyFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
copyFileSync(`${root}prisma/task.prisma`, `${root}test/prisma/task.prisma`);
execFileSync(process.execPath, [`${root}node_modules/prisma/build/index.js`, "generate", "--schema", `${root}test/prisma`], {
  stdio: "inherit",
  cwd: root,
  env: { PRISMA_SCHEMA_ENGINE_BINARY: process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: "1", ...process.env },
});
