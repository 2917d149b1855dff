// Generates the Prisma clients the tests use, one per dialect: test/prisma<suffix>/base.prisma (generator, datasource,
// business models) plus that dialect's shipped task model, copied beside it. A dialect whose test schema folder does
// not exist yet is skipped. `prisma generate` never runs the schema engine, so any existing file satisfies
// PRISMA_SCHEMA_ENGINE_BINARY.
import { copyFileSync, existsSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** [test schema folder, the dialect's shipped model] */
const CLIENTS = [
  ["test/prisma", "prisma/task.prisma"],
  ["test/prisma-sqlite", "prisma/sqlite/task.prisma"],
  ["test/prisma-mysql", "prisma/mysql/task.prisma"],
];

for (const [folder, model] of CLIENTS) {
  if (!existsSync(`${root}${folder}/base.prisma`)) continue;
  copyFileSync(`${root}${model}`, `${root}${folder}/task.prisma`);
  execFileSync(process.execPath, [`${root}node_modules/prisma/build/index.js`, "generate", "--schema", `${root}${folder}`], {
    stdio: "inherit",
    cwd: root,
    env: { PRISMA_SCHEMA_ENGINE_BINARY: process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: "1", ...process.env },
  });
}
