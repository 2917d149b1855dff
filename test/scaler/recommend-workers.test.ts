// The formula alone (the worked example of docs/observability.md and its edges) and the checks of the signal's options.

import { describe, expect, it } from "vitest";
import { recommendWorkers, type WorkerInputs } from "../../src/index.js";
import { resolveSignalOptions } from "../../src/scaler/scaler-options.js";
import { TaskQueueConfigError } from "../../src/errors.js";

const EXAMPLE: WorkerInputs = { arrivalRate: 10, meanProcessingSeconds: 0.5, backlog: 120, concurrency: 4, headroom: 1.2, drainSeconds: 60 };

describe("recommendWorkers", () => {
  it("is the documented worked example: 1.25 busy × 1.2 + 0.25 for the backlog = 1.75, so 2 workers", () => {
    const { workers, steady, drain } = recommendWorkers(EXAMPLE);
    expect(workers).toBe(2);
    expect(steady).toBeCloseTo(1.25, 9);
    expect(drain).toBeCloseTo(0.25, 9);
    expect(recommendWorkers({ ...EXAMPLE, backlog: 1200 }).workers).toBe(4);
  });

  it("asks for a worker more as the headroom, the backlog or the run time grow, and fewer with more concurrency", () => {
    expect(recommendWorkers({ ...EXAMPLE, backlog: 0, headroom: 1 }).workers).toBe(2);
    expect(recommendWorkers({ ...EXAMPLE, backlog: 0, headroom: 1.6 }).workers).toBe(2);
    expect(recommendWorkers({ ...EXAMPLE, backlog: 0, headroom: 1.61 }).workers).toBe(3);
    expect(recommendWorkers({ ...EXAMPLE, meanProcessingSeconds: 2 }).workers).toBe(7);
    expect(recommendWorkers({ ...EXAMPLE, concurrency: 40 }).workers).toBe(1);
  });

  it("is exact at whole numbers: 2 workers' worth is 2, not 3", () => {
    expect(recommendWorkers({ arrivalRate: 0.7 * 20, meanProcessingSeconds: 0.1 + 0.2, backlog: 0, concurrency: 2.1, headroom: 1, drainSeconds: 60 }).workers).toBe(2);
    expect(recommendWorkers({ arrivalRate: 16, meanProcessingSeconds: 0.5, backlog: 0, concurrency: 4, headroom: 1, drainSeconds: 60 }).workers).toBe(2);
  });

  it("says 0 when nothing arrives or waits, at least 1 otherwise, and that it cannot tell without a processing time", () => {
    expect(recommendWorkers({ ...EXAMPLE, arrivalRate: 0, backlog: 0, meanProcessingSeconds: null })).toEqual({ workers: 0, steady: 0, drain: 0 });
    expect(recommendWorkers({ ...EXAMPLE, arrivalRate: 0.001, backlog: 0 }).workers).toBe(1);
    expect(recommendWorkers({ ...EXAMPLE, meanProcessingSeconds: null })).toEqual({
      workers: null,
      steady: null,
      drain: null,
      unknown: "no success was timed within the processing window, so the processing time is unknown",
    });
  });
});

describe("the signal's options", () => {
  it("refuses a value out of range, naming the option and the range", () => {
    expect(() => resolveSignalOptions({ windowSeconds: 1000 })).toThrow(new TaskQueueConfigError("windowSeconds", "must be a number from 5 to 900, got 1000."));
    expect(() => resolveSignalOptions({ headroom: 0.5 })).toThrow(new TaskQueueConfigError("headroom", "must be a number from 1 to 10, got 0.5."));
    expect(() => resolveSignalOptions({ concurrency: { mail: 0 } })).toThrow(
      new TaskQueueConfigError("concurrency.mail", "must be an integer from 1 to 10000 (a worker's concurrency), got 0."),
    );
  });

  it("has the documented defaults, and takes the concurrency per queue with `default` for the others", () => {
    expect(resolveSignalOptions()).toMatchObject({ windowSeconds: 60, processingWindowSeconds: 300, headroom: 1.2, drainSeconds: 60 });
    expect(resolveSignalOptions().concurrencyOf("any")).toBe(10);
    const perQueue = resolveSignalOptions({ concurrency: { mail: 1, default: 5 } });
    expect([perQueue.concurrencyOf("mail"), perQueue.concurrencyOf("reports")]).toEqual([1, 5]);
  });
});
