// Scenario 8: a backlog left by one-task transactions. `count` transactions each enqueue one task (so RabbitMQ holds
// about one wake-up message per task, NOTIFY sent one notification per task), then one worker process of 10 drains it.
// Measured beside the same count enqueued in one transaction, alternating on fresh databases, so load hits both alike.

import type { Peer, Producer, RunTarget } from "../peers/peer.js";
import { drain, type DrainResult } from "./drain.js";

/** Transactions in flight while the backlog is built: enough to build it in seconds, few enough to keep commits apart. */
const SEED_CONCURRENCY = 8;

export interface BacklogResult extends DrainResult {
  /** How the backlog was built: one transaction for all ("bulk") or one per task ("singly"). */
  seeding: "bulk" | "singly";
  /** Wake-up messages waiting in RabbitMQ when the worker started; undefined without a broker. */
  wakeupsWaiting?: number;
}

export async function backlogDrain(
  peer: Peer,
  producer: Producer,
  target: RunTarget,
  options: { seeding: "bulk" | "singly"; count: number; timeoutMs: number; profileName?: string },
): Promise<BacklogResult> {
  let wakeupsWaiting: number | undefined;
  const seed = async (count: number) => {
    if (options.seeding === "bulk") await producer.seed(count);
    else await seedSingly(producer, count);
    wakeupsWaiting = await producer.wakeupsWaiting?.();
  };
  const result = await drain(peer, producer, target, {
    processes: 1,
    concurrency: 10,
    count: options.count,
    timeoutMs: options.timeoutMs,
    profileName: options.profileName,
    seed,
  });
  return { ...result, seeding: options.seeding, ...(wakeupsWaiting === undefined ? {} : { wakeupsWaiting }) };
}

/** `count` committed transactions of one task each (and the business row), SEED_CONCURRENCY at a time. */
async function seedSingly(producer: Producer, count: number): Promise<void> {
  if (producer.seedSingly) return producer.seedSingly(count, SEED_CONCURRENCY);
  let next = 0;
  await Promise.all(
    Array.from({ length: SEED_CONCURRENCY }, async () => {
      while (next < count) await producer.transaction(next++, true);
    }),
  );
  await producer.flush();
}
