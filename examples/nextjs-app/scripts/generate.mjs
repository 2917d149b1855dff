// `npm run generate`: runs `prisma generate` for the example's client from the committed schema folder. The Task model
// there (prisma/schema/task.prisma) is a committed copy of the package's, as `npx task-runner init` leaves one in a real
// app; this script never rewrites it. It warns when the copy drifted, and `npm run generate -- --update-model` copies
// the installed package's model over it (the root test suite fails while the two differ).
import { execFileSync } from "node:child_process";
import { copyFileSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const app = fileURLToPath(new URL("..", import.meta.url));
const require = createRequire(import.meta.url);
const shipped = require.resolve("prisma-task-queue/prisma/task.prisma");
const copy = `${app}prisma/schema/task.prisma`;

if (process.argv.includes("--update-model")) {
  copyFileSync(shipped, copy);
  console.log(`Copied ${shipped} to prisma/schema/task.prisma.`);
} else if (readFileSync(shipped, "utf8") !== readFileSync(copy, "utf8")) {
  console.warn(
    `prisma/schema/task.prisma differs from the installed prisma-task-queue's model (${shipped}). ` +
      "Run `npm run generate -- --update-model` to copy it, then apply the package's new migrations (npm run db:setup).",
  );
}
// `prisma generate` never starts the schema engine; any existing file satisfies PRISMA_SCHEMA_ENGINE_BINARY, so no
// engine download is attempted.
execFileSync(process.execPath, [require.resolve("prisma/build/index.js"), "generate", "--schema", "prisma/schema"], {
  cwd: app,
  stdio: "inherit",
  env: { PRISMA_SCHEMA_ENGINE_BINARY: process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: "1", ...process.env },
});
