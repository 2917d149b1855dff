// With @opentelemetry/api installed and no SDK registered, a run reports nothing (no span, no metric, no scope to
// carry), so an app that merely has the API pays no more than an app without it; once the app registers an SDK, the
// same process's next runs are traced and measured, and when it removes it they stop again.

import { afterAll, describe, expect, it } from "vitest";
import type { TaskRecord } from "../../src/store/task-record.js";
import { addTelemetryListener, runScopeOf, telemetry } from "../../src/telemetry/telemetry.js";
import { OtelHarness } from "./otel-harness.js";

const place = { dialect: "postgresql", transport: "rabbitmq" };
let n = 0;
const task = (): TaskRecord => ({ id: `idle-${n++}`, name: "noop", queue: "default", attempts: 1, runAt: new Date(), traceContext: null }) as unknown as TaskRecord;

describe("telemetry while nothing records", () => {
  const harness = new OtelHarness();
  afterAll(() => harness.uninstall());

  it("a run has no scope without an SDK; with one it has a span and metrics; without it again, none", async () => {
    const hub = telemetry()!;
    expect(hub).toBeDefined(); // the API is installed here
    const before = task();
    expect(hub.runStarted(before, place)).toBeUndefined();
    expect(runScopeOf(before)).toBeUndefined();

    harness.install();
    const traced = task();
    const scope = hub.runStarted(traced, place);
    expect(scope?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(runScopeOf(traced)).toBe(scope);
    scope!.end("succeeded");
    expect(harness.named("process default")).toHaveLength(1);
    expect(await harness.total("messaging.client.consumed.messages")).toBe(1);

    await harness.uninstall();
    expect(hub.runStarted(task(), place)).toBeUndefined();
  });

  it("a listener without active() (an exporter of its own) still hears every run", () => {
    const ended: string[] = [];
    const remove = addTelemetryListener({ taskEnded: (event, outcome) => ended.push(`${event.taskId} ${outcome}`) });
    try {
      const run = task();
      const scope = telemetry()!.runStarted(run, place);
      expect(scope).toBeDefined();
      scope!.end("succeeded");
      expect(ended).toEqual([`${run.id} succeeded`]);
    } finally {
      remove();
    }
  });
});
