// Scenario 1: a Prisma interactive transaction that writes a business row, with and without one enqueue, at a
// given concurrency. Slices alternate without/with/with/without so drift on a shared machine hits both alike.

import { wallMs } from "../clock.js";
import type { Producer } from "../peers/peer.js";

export interface EnqueueTransactionResult {
  concurrency: number;
  /** Transactions per second with the enqueue. */
  withEnqueue: number;
  /** Transactions per second of the same transaction without it. */
  without: number;
  /** withEnqueue / without. */
  ratio: number;
}

const WARMUP_TRANSACTIONS = 200;

export async function enqueueTransaction(producer: Producer, concurrency: number, seconds: number): Promise<EnqueueTransactionResult> {
  let n = 0;
  await loop(producer, concurrency, () => n++ < WARMUP_TRANSACTIONS, false);
  n = 0;
  await loop(producer, concurrency, () => n++ < WARMUP_TRANSACTIONS, true);
  await producer.flush();
  const sliceMs = (seconds * 1000) / 4;
  const totals = { with: { count: 0, ms: 0 }, without: { count: 0, ms: 0 } };
  for (const enqueue of [false, true, true, false]) {
    const end = wallMs() + sliceMs;
    const started = wallMs();
    const count = await loop(producer, concurrency, () => wallMs() < end, enqueue);
    if (enqueue) await producer.flush(); // wake-ups published and marked: their cost belongs to the slice
    const total = enqueue ? totals.with : totals.without;
    total.count += count;
    total.ms += wallMs() - started;
  }
  const withEnqueue = (totals.with.count * 1000) / totals.with.ms;
  const without = (totals.without.count * 1000) / totals.without.ms;
  return { concurrency, withEnqueue, without, ratio: withEnqueue / without };
}

/** Runs `concurrency` loops of transactions while `more()` says so; returns how many committed. */
async function loop(producer: Producer, concurrency: number, more: () => boolean, enqueue: boolean): Promise<number> {
  let committed = 0;
  let n = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (more()) {
        await producer.transaction(n++, enqueue);
        committed++;
      }
    }),
  );
  return committed;
}
