// startTaskRunner(), the embedded worker and cleaner of a self-hosted Next.js server: one per process however often
// register() or a module calls it, none while `next build` runs, refused on the edge runtime, and on SIGTERM the
// running task finishes (the worker's drain) before the process exits 0; with stopOnSignals false it leaves the
// signals to the app.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTaskRunner } from "../../src/next/index.js";
import { postgresStoreDialect } from "../conformance/store/dialects.js";
import { WorkerProcess } from "../support/worker-process.js";
import { waitUntil } from "../support/wait.js";
import { WorkerTestBed } from "../worker/harness.js";
import { runnerTasks } from "./runner-tasks.js";

describe("startTaskRunner", () => {
  let bed: WorkerTestBed;
  const dir = mkdtempSync(join(tmpdir(), "ptq-runner-"));

  beforeAll(async () => {
    bed = await WorkerTestBed.create(postgresStoreDialect);
  });
  afterAll(async () => {
    await bed?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("starts once per process; on SIGTERM the running task finishes before the process exits 0", { timeout: 120_000 }, async () => {
    const gate = join(dir, "gate");
    const child = await WorkerProcess.start(
      { RUNNER_DATABASE_URL: bed.url, RUNNER_AMQP_URL: bed.amqpUrl, RUNNER_PREFIX: bed.prefix, RUNNER_GATE: gate },
      "test/serverless/runner-child.ts",
      "runner ready",
    );
    expect(child.lines.find((line) => line.message === "runner ready")).toMatchObject({ same: true });
    expect(child.lines.filter((line) => line.message === "worker started")).toHaveLength(1);
    const id = await bed.insertTask("slow", {}, { publishedNow: true });
    await bed.wake([id]);
    await waitUntil(async () => (await bed.status(id)) === "running", "the task to start");
    child.signal("SIGTERM");
    await child.waitForLog((line) => line.message === "worker stopping", "the drain to begin");
    writeFileSync(gate, "");
    expect(await child.exited).toBe(0);
    expect(await bed.row(id)).toMatchObject({ status: "succeeded", result: { drained: true }, attempts: 1 });
  });

  it("with stopOnSignals false, adds no signal handler and stops only when told; a start after stop starts anew", async () => {
    const handlers = () => [process.listenerCount("SIGTERM"), process.listenerCount("SIGINT")];
    const before = handlers();
    const runner = await startTaskRunner({ tasks: runnerTasks, databaseUrl: bed.url, stopOnSignals: false, cleaner: false });
    expect(runner).toBeDefined();
    expect(handlers()).toEqual(before);
    expect(await startTaskRunner({ tasks: runnerTasks, databaseUrl: bed.url, stopOnSignals: false, cleaner: false })).toBe(runner);
    await runner!.stop();
    const next = await startTaskRunner({ tasks: runnerTasks, databaseUrl: bed.url, stopOnSignals: false, cleaner: false });
    expect(next).toBeDefined();
    expect(next).not.toBe(runner);
    await next!.stop();
    expect(handlers()).toEqual(before);
  });

  it("starts nothing while next build runs, and refuses the edge runtime", async () => {
    const saved = { phase: process.env.NEXT_PHASE, runtime: process.env.NEXT_RUNTIME };
    try {
      process.env.NEXT_PHASE = "phase-production-build";
      expect(await startTaskRunner({ tasks: runnerTasks, databaseUrl: bed.url })).toBeUndefined();
      delete process.env.NEXT_PHASE;
      process.env.NEXT_RUNTIME = "edge";
      expect(() => startTaskRunner({ tasks: runnerTasks, databaseUrl: bed.url })).toThrow(/Node\.js runtime, not the edge runtime/);
    } finally {
      for (const [key, value] of [
        ["NEXT_PHASE", saved.phase],
        ["NEXT_RUNTIME", saved.runtime],
      ] as const) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });
});
