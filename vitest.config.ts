// Vitest: real PostgreSQL and RabbitMQ (see test/global-setup.ts), a database per test file, a leak check per file,
// and the type tests (*.test-d.ts) checked by tsc.
import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The cluster tests start three RabbitMQ nodes (30-60 s): `npm run test:cluster` (vitest.cluster.config.ts).
    exclude: [...configDefaults.exclude, "test/cluster/**", "test/hosts/**"],
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["test/leak-check.ts"],
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    sequence: { hooks: "stack" },
    reporters: ["default", "./test/summary-reporter.ts"],
    typecheck: { enabled: true, include: ["test/**/*.test-d.ts"], tsconfig: "tsconfig.json" },
  },
});
