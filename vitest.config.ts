// Vitest: real PostgreSQL and RabbitMQ (see test/global-setup.ts), a database per test file, a leak check per file,
// and the type tests (*.test-d.ts) checked by tsc. Files run three at a time (most of their time is spent waiting on
// databases, brokers and child processes); the files that load the machine themselves (the soak, several worker
// processes under limits, the scaler's load) run afterwards, one at a time, so that none of them shares the cores.
import { configDefaults, defineConfig } from "vitest/config";
import SlowFirstSequencer from "./test/slow-first-sequencer.js";

/** Files that run alone, after the others. */
const ALONE = ["test/chaos/soak.test.ts", "test/controls/limits-processes.test.ts", "test/scaler/scaling.test.ts"];

export default defineConfig({
  test: {
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["test/leak-check.ts"],
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    sequence: { hooks: "stack", sequencer: SlowFirstSequencer },
    reporters: ["default", "./test/summary-reporter.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "together",
          include: ["test/**/*.test.ts"],
          // The cluster tests start three RabbitMQ nodes (30-60 s): `npm run test:cluster` (vitest.cluster.config.ts).
          exclude: [...configDefaults.exclude, "test/cluster/**", "test/hosts/**", ...ALONE],
          maxWorkers: 3,
          sequence: { groupOrder: 0 },
          typecheck: { enabled: true, include: ["test/**/*.test-d.ts"], tsconfig: "tsconfig.json" },
        },
      },
      {
        extends: true,
        test: { name: "alone", include: ALONE, fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
