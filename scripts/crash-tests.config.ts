// Vitest for the crash tests (`npm run test:crash`): each file starts a database server of its own and crashes it
// mid-drain, so they need the server programs (PostgreSQL's initdb and pg_ctl) but none of the shared services, and
// run apart from `npm test` (about a minute).
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: fileURLToPath(new URL("..", import.meta.url)),
    include: ["test/durability/**/*.crash.ts"],
    setupFiles: ["test/leak-check.ts"],
    pool: "forks",
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    sequence: { hooks: "stack" },
  },
});
