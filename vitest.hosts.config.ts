// Vitest for scripts/hosts.sh only (`npm run test:hosts`): it creates network namespaces and starts servers of its
// own in them (as root), so it stays out of `npm test`.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/hosts/**/*.test.ts"],
    pool: "forks",
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 600_000,
    reporters: ["default", "./test/summary-reporter.ts"],
  },
});
