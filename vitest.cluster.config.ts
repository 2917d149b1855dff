// Vitest for the RabbitMQ cluster tests only (`npm run test:cluster`): they start three nodes through
// scripts/rabbitmq-cluster.sh and stop, kill and freeze them, so they stay out of `npm test`.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/cluster/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["test/leak-check.ts"],
    pool: "forks",
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 300_000,
    sequence: { hooks: "stack" },
    reporters: ["default", "./test/summary-reporter.ts"],
  },
});
