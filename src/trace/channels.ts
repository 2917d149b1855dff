// Trace points on the path from a commit to a handler's start, published on Node's diagnostics_channel: a subscriber
// (the benchmark's latency trace, later an app's own tracing) reads the clock when a message arrives. Nothing is built
// or published while nobody subscribes (`hasSubscribers`), so the hot path pays one property read per point.

import diagnostics from "node:diagnostics_channel";

/** The message of every wake-up trace point: the task ids of one queue that one call carried. */
export interface WakeupTraceMessage {
  queue: string;
  ids: readonly string[];
}

/** Trace channels, by name. Subscribe with `diagnostics_channel.subscribe(name, fn)` or through these objects. */
export const traceChannels = {
  /** The wake-up sender was handed committed tasks' ids (in the app: right after the commit returned). */
  wakeupsSent: diagnostics.channel("prisma-task-queue:wakeups-sent"),
  /** The RabbitMQ publisher wrote a wake-up message to its channel (after the per-turn coalescing). */
  wakeupsPublished: diagnostics.channel("prisma-task-queue:wakeups-published"),
  /** A worker received a wake-up from its transport (RabbitMQ, NOTIFY, in-process) and starts claiming its ids. */
  wakeupsReceived: diagnostics.channel("prisma-task-queue:wakeups-received"),
} as const;

/** Publishes `ids` of `queue` on `channel` when someone listens. */
export function traceWakeups(channel: diagnostics.Channel, queue: string, ids: readonly string[]): void {
  if (channel.hasSubscribers) channel.publish({ queue, ids } satisfies WakeupTraceMessage);
}
