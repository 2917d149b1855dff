// A worker and the app on a three-node RabbitMQ cluster (one amqpUrl naming the three nodes, quorum queues): when the
// worker's node is stopped, SIGKILLed or frozen past the net tick time, a task enqueued next still starts by a wake-up
// through another node. Polling is set to ten minutes and no cleaner runs, so only a wake-up can start it in time.
// Run with `npm run test:cluster` (starting the cluster takes 30-60 s, so `npm test` leaves this file out).

import amqp from "amqplib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createWorker, defineTasks, taskQueue, type Worker } from "../../src/index.js";
import { amqpUrls } from "../../src/amqp-url.js";
import { topology } from "../../src/wakeups/rabbitmq/topology.js";
import { ctl, nodeOfUrl, otherNode, restartNode, resumeNode, signalNode, startCluster, waitClusterWhole, type ClusterNode } from "../support/rabbitmq-cluster.js";
import { waitUntil } from "../support/wait.js";
import { recordingLogger, WorkerTestBed } from "../worker/harness.js";
import type { testPrisma } from "../support/prisma.js";

const runs = new Map<string, number>();
const tasks = defineTasks({
  record: { payload: z.object({}), handler: async (_p, ctx) => void runs.set(ctx.task.id, (runs.get(ctx.task.id) ?? 0) + 1) },
});

/** Longest wait for a fault to be seen and a node to come back: a node starts in 10-40 s on a loaded machine. */
const FAULT_MS = 120_000;

describe("on a three-node RabbitMQ cluster", { timeout: 300_000 }, () => {
  let url: string;
  let bed: WorkerTestBed;
  let worker: Worker;
  const logger = recordingLogger();
  let prisma: ReturnType<typeof makeClient>;

  function makeClient() {
    const base = bed.dialect.prismaClient(bed.url) as unknown as ReturnType<typeof testPrisma>;
    return base.$extends(taskQueue({ tasks, amqpUrl: url, amqpPrefix: bed.prefix, quorumQueues: true, logger: recordingLogger() }));
  }

  beforeAll(async () => {
    url = await startCluster();
    await waitClusterWhole();
    bed = await WorkerTestBed.create();
    prisma = makeClient();
    worker = createWorker({ tasks, databaseUrl: bed.url, amqpUrl: url, amqpPrefix: bed.prefix, quorumQueues: true, pollIntervalMs: 600_000, logger });
    await worker.start();
    await waitUntil(() => logger.find("consuming wake-ups").length === 1, "the worker to consume", FAULT_MS);
  }, 300_000);

  afterAll(async () => {
    await worker?.stop();
    await prisma?.$taskQueue.close();
    await prisma?.$disconnect();
    if (url) await deleteQueues(url, bed.prefix);
    await bed?.close();
  }, 120_000);

  /** The node the worker's connection is on now, from its last "broker connected" line. */
  function workerNode(): ClusterNode {
    const node = nodeOfUrl(logger.find("broker connected").at(-1)?.fields.url);
    if (!node) throw new Error(`the worker logged no node: ${JSON.stringify(logger.find("broker connected"))}`);
    return node;
  }

  /** Runs `fault` on the worker's node; then a task enqueued once the worker consumes again must start by a wake-up. */
  async function wakesThroughAnotherNode(fault: (node: ClusterNode) => Promise<void>): Promise<void> {
    const lost = workerNode();
    const consumed = logger.find("consuming wake-ups").length;
    await fault(lost);
    await waitUntil(() => logger.find("consuming wake-ups").length > consumed, "the worker to consume through another node", FAULT_MS);
    expect(workerNode()).not.toBe(lost);
    const task = await prisma.task.enqueue("record", {});
    await waitUntil(async () => (await bed.status(task.id)) === "succeeded", "the task to run", FAULT_MS);
    expect(logger.find("task claimed", { taskId: task.id, via: "wakeup" })).toHaveLength(1);
    expect(runs.get(task.id)).toBe(1);
  }

  it("a task starts by a wake-up with every node up", async () => {
    const task = await prisma.task.enqueue("record", {});
    await waitUntil(async () => (await bed.status(task.id)) === "succeeded", "the task to run", FAULT_MS);
    expect(logger.find("task claimed", { taskId: task.id, via: "wakeup" })).toHaveLength(1);
  });

  it("fails over when the worker's node is stopped (stop_app), and the node comes back", async () => {
    let stopped: ClusterNode | undefined;
    await wakesThroughAnotherNode(async (node) => {
      stopped = node;
      await ctl(node, "stop_app");
    });
    await ctl(stopped!, "start_app");
    await waitClusterWhole(180_000, otherNode(stopped!));
  });

  it("fails over when the worker's node is SIGKILLed, and the node restarts and rejoins", async () => {
    let killed: ClusterNode | undefined;
    await wakesThroughAnotherNode(async (node) => {
      killed = node;
      await signalNode(node, "SIGKILL");
    });
    await restartNode(killed!);
  });

  it("fails over when the worker's node is frozen (SIGSTOP) past the net tick time, and the node resumes", async () => {
    let frozen: ClusterNode | undefined;
    try {
      await wakesThroughAnotherNode(async (node) => {
        frozen = node;
        await signalNode(node, "SIGSTOP");
      });
      // The others count the node down after the net tick time (10 s); the worker saw it silent after two heartbeats.
      await waitUntil(async () => (await nodesSeenBy(otherNode(frozen!))) === 2, "the others to count the frozen node down", FAULT_MS);
    } finally {
      if (frozen) await resumeNode(frozen);
    }
  });
});

/** How many running nodes node `n` counts. */
async function nodesSeenBy(n: ClusterNode): Promise<number> {
  const out = await ctl(n, "-q", "cluster_status", "--formatter", "json");
  return (JSON.parse(out) as { running_nodes: string[] }).running_nodes.length;
}

/** Deletes the queues and exchanges of `prefix` on the cluster, through the first node that answers. */
async function deleteQueues(url: string, prefix: string): Promise<void> {
  for (const node of amqpUrls(url)) {
    try {
      const model = await amqp.connect(node, { timeout: 5000 });
      const names = topology(prefix, true);
      const channel = await model.createChannel();
      for (const queue of [names.queueName("default"), names.deadLetterQueue]) await channel.deleteQueue(queue);
      await channel.deleteExchange(names.exchange);
      await channel.deleteExchange(names.deadLetterExchange);
      await model.close();
      return;
    } catch {
      // the next node
    }
  }
}
