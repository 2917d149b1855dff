// metricsPort and metricsHost of createWorker() and createCleaner(), and --metrics-port: bad values fail at once naming
// the option and the fix; a port another process holds fails start() with TaskQueueConfigError.

import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { createCleaner, createWorker, silentLogger, TaskQueueConfigError } from "../../src/index.js";
import { fixtureDir, runCli } from "../cli/cli-process.js";
import { tasks } from "../fixtures/cli-metrics/task-runner.config.js";

const databaseUrl = "postgresql://127.0.0.1:1/nowhere";

function configError(make: () => unknown): TaskQueueConfigError {
  try {
    make();
  } catch (error) {
    expect(error).toBeInstanceOf(TaskQueueConfigError);
    return error as TaskQueueConfigError;
  }
  throw new Error("no error was thrown");
}

describe.each([
  ["createWorker", (options: object) => createWorker({ tasks, databaseUrl, logger: silentLogger, ...options })],
  ["createCleaner", (options: object) => createCleaner({ tasks, databaseUrl, logger: silentLogger, ...options })],
])("%s", (_name, make) => {
  it("rejects a metricsPort that is no TCP port and a metricsHost without a port", () => {
    expect(configError(() => make({ metricsPort: 70000 })).message).toBe(
      'Invalid option "metricsPort": 70000 is not a TCP port; use 0-65535 (e.g. 9464; 0 picks a free one).',
    );
    expect(configError(() => make({ metricsPort: "9464" })).message).toContain('"9464" is not a TCP port');
    expect(configError(() => make({ metricsHost: "127.0.0.1" })).message).toBe(
      'Invalid option "metricsHost": is set without metricsPort: add metricsPort (e.g. 9464) to serve the metrics.',
    );
    expect(configError(() => make({ metricsPort: 9464, metricsHost: " " })).message).toBe(
      'Invalid option "metricsHost": must be an address such as "0.0.0.0" or "127.0.0.1", got " ".',
    );
  });

  it("fails start() when another process holds the port", async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const { port } = holder.address() as { port: number };
    try {
      const part = make({ metricsPort: port, metricsHost: "127.0.0.1" }) as { start(): Promise<void>; stop(): Promise<void> };
      const error = await part.start().then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      await part.stop();
      expect(error).toBeInstanceOf(TaskQueueConfigError);
      expect((error as Error).message).toBe(
        `Invalid option "metricsPort": cannot serve the metrics on 127.0.0.1:${port} (EADDRINUSE): another process listens there; give each process its own metricsPort.`,
      );
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});

it("a cleaner alone serves its counters on the port it picked, named in its start's log line", async () => {
  const lines: Array<{ message: string; fields?: Record<string, unknown> }> = [];
  const record = (message: string, fields?: Record<string, unknown>) => void lines.push({ message, fields });
  const cleaner = createCleaner({ tasks, databaseUrl, metricsPort: 0, metricsHost: "127.0.0.1", logger: { debug: record, info: record, warn: record, error: record } });
  await cleaner.start();
  try {
    const url = lines.find((line) => line.message === "cleaner started")?.fields?.metrics as string;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(url).not.toContain(":0/");
    const text = await (await fetch(url)).text();
    expect(text).toContain("# TYPE prisma_task_queue_wakeups_republished_total counter\n");
    expect(text).toMatch(/^prisma_task_queue_lease_recoveries_total\{queue="held",outcome="dead"\} \d+$/m);
  } finally {
    await cleaner.stop();
  }
});

it("task-runner worker --metrics-port refuses a value that is no port, and --metrics-host without a port", async () => {
  const cwd = fixtureDir("cli-metrics");
  const noPort = await runCli(["worker", "--metrics-port", "abc"], { cwd });
  expect(noPort.code).toBe(2);
  expect(noPort.stderr).toBe('task-runner worker: --metrics-port "abc" is not a TCP port; use 0-65535 (e.g. 9464).\n');
  const hostOnly = await runCli(["cleaner", "--metrics-host", "127.0.0.1"], { cwd, env: { DATABASE_URL: databaseUrl } });
  expect(hostOnly.code).toBe(2);
  expect(hostOnly.stderr).toBe("task-runner cleaner: --metrics-host needs a port: add --metrics-port (e.g. 9464), or metricsPort in the config's cleaner: {...}.\n");
});
