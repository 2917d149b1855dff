// The trace points on node:diagnostics_channel: an enqueue committed through the extension passes "sent" and, with
// RabbitMQ, "published" in the app, then "received" in the worker, each carrying its queue and the task's id, in that
// order; a rolled-back enqueue passes none of them; with NOTIFY the worker's "received" comes without a publish.

import diagnostics from "node:diagnostics_channel";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTasks, silentLogger, taskQueue } from "../../src/index.js";
import { traceChannels, traceWakeups, type WakeupTraceMessage } from "../../src/trace/channels.js";
import { testPrisma } from "../support/prisma.js";
import { waitUntil } from "../support/wait.js";
import { WorkerTestBed } from "../worker/harness.js";

const ran: string[] = [];
const tasks = defineTasks({ traced: { payload: z.object({}), handler: async (_payload, ctx) => void ran.push(ctx.task.id) } });

/** Every message of the three trace channels, in order, as [point, queue, ids]. */
const seen: Array<[string, string, string[]]> = [];
const listeners = (["wakeupsSent", "wakeupsPublished", "wakeupsReceived"] as const).map((point) => {
  const listener = (message: unknown) => {
    const { queue, ids } = message as WakeupTraceMessage;
    seen.push([point, queue, [...ids]]);
  };
  return [traceChannels[point], listener] as const;
});
const pointsOf = (id: string) => seen.filter(([, , ids]) => ids.includes(id)).map(([point, queue]) => `${point}:${queue}`);

let bed: WorkerTestBed;

beforeAll(async () => {
  bed = await WorkerTestBed.create();
  for (const [channel, listener] of listeners) channel.subscribe(listener);
});

afterEach(() => void seen.splice(0));

afterAll(async () => {
  for (const [channel, listener] of listeners) channel.unsubscribe(listener);
  await bed?.closeAll();
});

describe("trace channels", () => {
  it("are named for subscribers that do not import the library", () => {
    expect(diagnostics.channel("prisma-task-queue:wakeups-sent")).toBe(traceChannels.wakeupsSent);
    expect(diagnostics.channel("prisma-task-queue:wakeups-published")).toBe(traceChannels.wakeupsPublished);
    expect(diagnostics.channel("prisma-task-queue:wakeups-received")).toBe(traceChannels.wakeupsReceived);
  });

  it("publish nothing while nobody subscribes, and { queue, ids } once someone does", () => {
    const published: unknown[] = [];
    const channel = (hasSubscribers: boolean) => ({ hasSubscribers, publish: (message: unknown) => void published.push(message) }) as unknown as diagnostics.Channel;
    traceWakeups(channel(false), "default", ["a"]);
    expect(published).toEqual([]);
    traceWakeups(channel(true), "mail", ["a", "b"]);
    expect(published).toEqual([{ queue: "mail", ids: ["a", "b"] }]);
  });

  it("with RabbitMQ: sent, then published in the app, then received in the worker; nothing for a rollback", async () => {
    const prisma = bed.prisma(tasks);
    await bed.startWorker({ tasks, pollIntervalMs: 60_000 });
    const task = await prisma.$transaction((tx) => tx.task.enqueue("traced", {}));
    const rolledBack = await prisma
      .$transaction(async (tx) => {
        const doomed = await tx.task.enqueue("traced", {});
        throw Object.assign(new Error("roll back"), { doomed: doomed.id });
      })
      .catch((error: { doomed: string }) => error.doomed);
    await waitUntil(() => ran.includes(task.id), "the traced task to run");
    expect(pointsOf(task.id)).toEqual(["wakeupsSent:default", "wakeupsPublished:default", "wakeupsReceived:default"]);
    expect(pointsOf(rolledBack)).toEqual([]);
  });

  it("with NOTIFY: received in the worker, with no publish after the commit", async () => {
    const prisma = testPrisma(bed.url).$extends(taskQueue({ tasks, amqpPrefix: bed.prefix, logger: silentLogger })); // no amqpUrl: NOTIFY
    const worker = await bed.startWorker({ tasks, wakeups: "notify", pollIntervalMs: 60_000 });
    try {
      const task = await prisma.$transaction((tx) => tx.task.enqueue("traced", {}));
      await waitUntil(() => ran.includes(task.id), "the traced task to run");
      expect(pointsOf(task.id)).toEqual(["wakeupsReceived:default"]);
    } finally {
      await worker.stop();
      await prisma.$taskQueue.close();
      await prisma.$disconnect();
    }
  });
});
