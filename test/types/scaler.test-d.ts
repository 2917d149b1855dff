// The scaling signal's public types: what queueSignals takes and answers, and recommendWorkers' inputs and answer.

import { expectTypeOf, test } from "vitest";
import { openStore, queueSignals, recommendWorkers, type QueueSignal, type QueueSignalOptions, type Store, type WorkerRecommendation } from "../../src/index.js";

test("queueSignals takes a store and options, and answers one signal per queue with nullable values", () => {
  const store = openStore("postgresql://localhost/app");
  expectTypeOf(queueSignals(store)).toEqualTypeOf<Promise<QueueSignal[]>>();
  expectTypeOf(queueSignals(store, { windowSeconds: 30, headroom: 1.5, concurrency: { mail: 2, default: 10 } })).toEqualTypeOf<Promise<QueueSignal[]>>();
  expectTypeOf<QueueSignal["arrivalRate"]>().toEqualTypeOf<number | null>();
  expectTypeOf<QueueSignal["recommendedWorkers"]>().toEqualTypeOf<number | null>();
  expectTypeOf<QueueSignal["backlog"]>().toEqualTypeOf<number>();
  expectTypeOf<QueueSignal["unknown"]>().toEqualTypeOf<string | undefined>();
  expectTypeOf<QueueSignalOptions["concurrency"]>().toEqualTypeOf<number | Readonly<Record<string, number>> | undefined>();
  // Any object with the two reads will do: the store of an app's Prisma client, or one bound to a transaction.
  expectTypeOf(queueSignals).parameter(0).toEqualTypeOf<Pick<Store, "queueActivity" | "pendingAges">>();
  // @ts-expect-error a window is a number of seconds
  void queueSignals(store, { windowSeconds: "60" });
});

test("recommendWorkers takes every input and says null when it cannot tell", () => {
  const answer = recommendWorkers({ arrivalRate: 10, meanProcessingSeconds: null, backlog: 0, concurrency: 4, headroom: 1.2, drainSeconds: 60 });
  expectTypeOf(answer).toEqualTypeOf<WorkerRecommendation>();
  expectTypeOf(answer.workers).toEqualTypeOf<number | null>();
  // @ts-expect-error the backlog is required
  recommendWorkers({ arrivalRate: 10, meanProcessingSeconds: 0.5, concurrency: 4, headroom: 1.2, drainSeconds: 60 });
});
