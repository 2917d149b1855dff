// `npm run generate`: copies the queue's Task model from the installed prisma-task-queue package into the schema
// folder (what `npx task-runner init` does once in a real app), then runs `prisma generate` for the example's client.
import { execFileSync } from "node:child_process";
import { copyFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const app = fileURLToPath(new URL("..", import.meta.url));
const require = createRequire(import.meta.url);

copyFileSync(require.resolve("prisma-task-queue/prisma/task.prisma"), `${app}prisma/schema/task.prisma`);
// `prisma generate` never starts the schema engine; any existing file satisfies PRISMA_SCHEMA_ENGINE_BINARY, so no
// engine download is attempted.
execFileSync(process.execPath, [require.resolve("prisma/build/index.js"), "generate", "--schema", "prisma/schema"], {
  cwd: app,
  stdio: "inherit",
  env: { PRISMA_SCHEMA_ENGINE_BINARY: process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: "1", ...process.env },
});
