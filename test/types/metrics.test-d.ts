// Type tests: the metrics options of createWorker(), createCleaner() and the runner's config take a port number and a
// host string. Checked by tsc and by vitest's typecheck.

import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { createCleaner, createWorker, defineConfig, defineTasks, type CleanerOptions, type MetricsOptions, type WorkerOptions } from "../../src/index.js";

const tasks = defineTasks({ mail: { payload: z.object({}), handler: async () => {} } });

describe("metrics options", () => {
  it("are a port number and a host string on the worker and the cleaner", () => {
    expectTypeOf<WorkerOptions>().toMatchTypeOf<MetricsOptions>();
    expectTypeOf<WorkerOptions["metricsPort"]>().toEqualTypeOf<number | undefined>();
    expectTypeOf<WorkerOptions["metricsHost"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<CleanerOptions["metricsPort"]>().toEqualTypeOf<number | undefined>();
    expectTypeOf<CleanerOptions["metricsHost"]>().toEqualTypeOf<string | undefined>();
    createWorker({ tasks, databaseUrl: "postgresql://localhost/app", metricsPort: 9464, metricsHost: "0.0.0.0" });
    createCleaner({ tasks, databaseUrl: "postgresql://localhost/app", metricsPort: 9465 });
    // @ts-expect-error a port is a number
    createWorker({ tasks, databaseUrl: "postgresql://localhost/app", metricsPort: "9464" });
  });

  it("go in the runner's config under worker and cleaner", () => {
    defineConfig({ tasks, worker: { metricsPort: 9464 }, cleaner: { metricsPort: 9465, metricsHost: "127.0.0.1" } });
    // @ts-expect-error a host is a string
    defineConfig({ tasks, worker: { metricsPort: 9464, metricsHost: 0 } });
  });
});
