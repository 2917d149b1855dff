// Which writes of a worker commit without waiting for the disk flush: by default its completions (where the dialect
// can), its claims only with asyncClaims, neither with asyncCompletions: false.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTasks, openStore, type Store } from "../../src/index.js";
import { DIALECTS } from "../../src/dialects/index.js";
import { createWorker } from "../../src/worker/create-worker.js";
import { countingStore } from "../support/counting-store.js";
import { waitUntil } from "../support/wait.js";
import { recordingLogger, WORKER_DIALECTS, WorkerTestBed } from "./harness.js";

const tasks = defineTasks({ mail: { payload: z.object({}), handler: async () => "sent" } });

/** `store`, counting the operations asked of it and, apart, of its view whose commits do not wait for the flush. */
function countingBoth(store: Store) {
  const durable = countingStore(store);
  const relaxed = new Map<string, number>();
  const both = new Proxy(durable.store, {
    get(target, property, receiver) {
      if (property !== "withAsyncCommit") return Reflect.get(target, property, receiver) as unknown;
      return () => {
        const view = store.withAsyncCommit();
        return view && countingStore(view, relaxed).store;
      };
    },
  });
  return { store: both, durable: durable.calls, relaxed };
}

const CASES = [
  { options: {}, claims: "durable", completions: "async", logged: "completions" },
  { options: { asyncClaims: true }, claims: "async", completions: "async", logged: "claims and completions" },
  { options: { asyncCompletions: false }, claims: "durable", completions: "durable", logged: "none" },
  { options: { asyncClaims: true, asyncCompletions: false }, claims: "async", completions: "durable", logged: "claims" },
] as const;

describe.each(WORKER_DIALECTS)("the worker's commits ($name)", (dialect) => {
  let bed: WorkerTestBed;
  let store: Store;
  const capable = DIALECTS.find((candidate) => candidate.name === dialect.name)!.capabilities.asyncCommit;

  beforeAll(async () => {
    bed = await WorkerTestBed.create(dialect);
    store = openStore(bed.url, { max: 2 });
  });

  afterAll(async () => {
    await store?.close();
    await bed?.close();
  });

  it.each(CASES)("with $options: claims $claims, completions $completions where the dialect can", async ({ options, claims, completions, logged }) => {
    const logger = recordingLogger();
    const counted = countingBoth(store);
    const worker = createWorker({ tasks, store: counted.store, wakeups: "polling", pollIntervalMs: 20, logger, ...options });
    await worker.start();
    try {
      const id = await bed.insertTask("mail", {});
      await waitUntil(async () => (await bed.status(id)) === "succeeded", "the task to succeed");
      expect((await bed.row(id)).result).toBe("sent");
    } finally {
      await worker.stop();
    }
    const through = (kind: "async" | "durable", operation: string) => ((kind === "async" && capable ? counted.relaxed : counted.durable).get(operation) ?? 0) > 0;
    const notThrough = (kind: "async" | "durable", operation: string) => ((kind === "async" && capable ? counted.durable : counted.relaxed).get(operation) ?? 0) === 0;
    expect(through(claims, "claimDue") && notThrough(claims, "claimDue"), `claims ${claims}`).toBe(true);
    expect(through(completions, "complete") && notThrough(completions, "complete"), `completions ${completions}`).toBe(true);
    expect(logger.find("worker started")[0]!.fields.asyncCommits).toBe(capable ? logged : "none");
  });
});
