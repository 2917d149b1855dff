// A success whose answer never comes back: PostgreSQL commits "succeeded" (durably or not) but the connection drops
// before the worker hears it. The worker retries the guarded write, finds its own earlier write, says so, and nothing runs twice.

import { createServer, connect, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTasks } from "../../src/index.js";
import { createWorker, type Worker } from "../../src/worker/create-worker.js";
import { waitUntil } from "../support/wait.js";
import { recordingLogger, WorkerTestBed } from "./harness.js";

/**
 * Forwards PostgreSQL traffic; once a client sends a statement containing `marker`, it lets the statement through,
 * swallows the server's answer, and resets that connection a moment later (after the commit).
 */
class AnswerDroppingProxy {
  private server!: Server;
  private readonly sockets = new Set<Socket>();
  port = 0;
  dropped = 0;

  constructor(
    private readonly target: URL,
    private readonly marker: string,
  ) {}

  async start(): Promise<this> {
    this.server = createServer((client) => {
      const upstream = connect({ host: this.target.hostname, port: Number(this.target.port || 5432) });
      let swallowing = false;
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on("error", () => {});
        socket.on("close", () => (this.sockets.delete(socket), client.destroy(), upstream.destroy()));
      }
      client.on("data", (chunk) => {
        upstream.write(chunk);
        if (!swallowing && this.dropped === 0 && chunk.toString("latin1").includes(this.marker)) {
          swallowing = true;
          this.dropped++;
          setTimeout(() => (client.resetAndDestroy(), upstream.destroy()), 300);
        }
      });
      upstream.on("data", (chunk) => {
        if (!swallowing) client.write(chunk);
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  url(): string {
    const url = new URL(this.target);
    url.hostname = "127.0.0.1";
    url.port = String(this.port);
    return url.toString();
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const runs: string[] = [];
const tasks = defineTasks({ once: { payload: z.object({}), handler: async (_p, ctx) => (runs.push(ctx.task.id), { ok: true }) } });

// PostgreSQL only: on MySQL a separate COMMIT follows the marked UPDATE (so a dropped answer means no commit), and
// SQLite has no connection to cut. A durable success commits with its UPDATE by itself; an asynchronous one (the
// default) commits with the COMMIT that follows it in its own transaction, the first COMMIT the worker sends.
describe.each([
  { completions: "durable", asyncCompletions: false, marker: "SET status = 'succeeded'" },
  { completions: "asynchronous", asyncCompletions: true, marker: "COMMIT" },
])("a $completions success", ({ asyncCompletions, marker }) => {
  let bed: WorkerTestBed;
  let proxy: AnswerDroppingProxy;
  let worker: Worker;
  const logger = recordingLogger();

  beforeAll(async () => {
    runs.length = 0;
    bed = await WorkerTestBed.create();
    proxy = await new AnswerDroppingProxy(new URL(bed.url), marker).start();
    worker = createWorker({ tasks, databaseUrl: proxy.url(), amqpUrl: bed.amqpUrl, amqpPrefix: bed.prefix, logger, leaseMs: 5000, asyncCompletions });
    await worker.start();
  });

  afterAll(async () => {
    await worker?.stop();
    await proxy?.stop();
    await bed?.close();
  });

  it("retries a success whose answer was lost, recognises its own write, and never runs the task again", async () => {
    const id = await bed.insertTask("once", {}, { publishedNow: true });
    await bed.wake([id]);
    await waitUntil(
      () =>
        logger.find("task outcome not written again: the connection dropped during the first write, which most likely committed (else the lease was lost meanwhile)", {
          taskId: id,
        }).length === 1,
      "the retried write to find the task done",
      15_000,
    );
    expect(proxy.dropped).toBe(1);
    expect(logger.find("recording task success failed, retrying", { taskId: id })).toHaveLength(1);
    expect(await bed.row(id)).toMatchObject({ status: "succeeded", attempts: 1, result: { ok: true }, lease_owner: null });
    expect(logger.find("task result discarded: this worker no longer holds its lease", { taskId: id })).toEqual([]);
    // A late duplicate wake-up finds it done: it never runs again.
    await bed.wake([id]);
    await waitUntil(() => logger.find("wake-up dropped", { taskId: id }).length === 1 || runs.length > 1, "the second wake-up to be handled");
    expect(runs).toEqual([id]);
  });
});
