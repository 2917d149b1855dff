// Failures: a failing task retries with growing backoff and ends dead with a dead-letter notification;
// UnrecoverableError and an invalid payload go dead at once; a thrown non-Error is recorded as a string.

import amqp from "amqplib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { topology } from "../../src/wakeups/rabbitmq/topology.js";
import { defineTasks, UnrecoverableError } from "../../src/index.js";
import type { DeadTaskNotification } from "../../src/wakeups/dead-task-notification.js";
import { waitUntil } from "../support/wait.js";
import { DuePublisher, WORKER_DIALECTS, workerFixture } from "./harness.js";

const runAts = new Map<string, Date[]>();
const handled: string[] = [];

const tasks = defineTasks({
  flaky: {
    payload: z.object({}),
    maxAttempts: 4,
    backoff: { baseMs: 200, factor: 3, jitter: 0 },
    handler: async (_p, ctx) => {
      runAts.set(ctx.task.id, [...(runAts.get(ctx.task.id) ?? []), ctx.task.runAt]);
      throw new Error(`boom ${ctx.attempt}`);
    },
  },
  doomed: {
    payload: z.object({}),
    maxAttempts: 5,
    handler: async () => {
      throw new UnrecoverableError("the account was deleted");
    },
  },
  strict: {
    payload: z.object({ count: z.number().int() }),
    handler: async (_p, ctx) => void handled.push(ctx.task.id),
  },
  "throws-value": {
    payload: z.object({ value: z.unknown() }),
    maxAttempts: 1,
    handler: async ({ value }) => {
      throw value;
    },
  },
});

describe.each(WORKER_DIALECTS)("failures ($name)", (dialect) => {
  const fixture = workerFixture(tasks, { dialect, worker: { pollIntervalMs: 60_000 } });
  let duePublisher: DuePublisher;
  let deadModel: amqp.ChannelModel;
  const dead: DeadTaskNotification[] = [];

  beforeAll(async () => {
    duePublisher = await DuePublisher.start(fixture.bed);
    deadModel = await amqp.connect(fixture.bed.amqpUrl);
    const channel = await deadModel.createChannel();
    await channel.consume(topology(fixture.bed.prefix).deadLetterQueue, (message) => {
      if (!message) return;
      dead.push(JSON.parse(message.content.toString()) as DeadTaskNotification);
      channel.ack(message);
    });
  });

  afterAll(async () => {
    await duePublisher?.stop();
    await deadModel?.close();
  });

  it("retries a failing task with growing backoff, then marks it dead and publishes a dead-letter notification", async () => {
    // Inserted and woken by hand: the extension's after-commit mark of published_at can land after the first failure
    // and hide the retry from a "published_at IS NULL" sweep (see the report on markPublished).
    const task = { id: await fixture.bed.insertTask("flaky", {}, { maxAttempts: 4, publishedNow: true }) };
    await fixture.bed.wake([task.id]);
    await waitUntil(async () => (await fixture.bed.status(task.id)) === "dead", "the task to go dead", 20_000);
    const row = await fixture.bed.row(task.id);
    expect(row).toMatchObject({ status: "dead", attempts: 4, max_attempts: 4, lease_owner: null });
    expect(row.finished_at).toBeInstanceOf(Date);
    expect(row.last_error).toMatch(/^Error: boom 4\n\s+at /);

    const retries = fixture.logger.find("task failed, retry scheduled", { taskId: task.id });
    expect(retries.map((line) => [line.fields.attempt, line.fields.delayMs, line.fields.error])).toEqual([
      [1, 200, "boom 1"],
      [2, 600, "boom 2"],
      [3, 1800, "boom 3"],
    ]);
    // Each run became due (run_at, database clock) at least its backoff after the previous one. (The gaps also hold the
    // time from one run_at to that run's failure, which a loaded machine stretches: the growth is in the delays above.)
    const times = runAts.get(task.id)!.map((date) => date.getTime());
    expect(times).toHaveLength(4);
    const gaps = times.slice(1).map((time, i) => time - times[i]!);
    expect(gaps[0]).toBeGreaterThanOrEqual(200);
    expect(gaps[1]).toBeGreaterThanOrEqual(600);
    expect(gaps[2]).toBeGreaterThanOrEqual(1800);

    await waitUntil(() => dead.some((n) => n.id === task.id), "the dead-letter notification");
    expect(dead.find((n) => n.id === task.id)).toMatchObject({ name: "flaky", queue: "default", attempts: 4, reason: "max-attempts" });
    expect(dead.find((n) => n.id === task.id)!.lastError).toContain("boom 4");
    expect(fixture.logger.find("task dead", { taskId: task.id, reason: "max-attempts" })).toHaveLength(1);
  });

  it("sends a task that throws UnrecoverableError to dead at once, whatever attempts remain", async () => {
    const task = await fixture.prisma.task.enqueue("doomed", {});
    await waitUntil(async () => (await fixture.bed.status(task.id)) === "dead", "the task to go dead");
    expect(await fixture.bed.row(task.id)).toMatchObject({ attempts: 1, max_attempts: 5 });
    expect((await fixture.bed.row(task.id)).last_error).toMatch(/^UnrecoverableError: the account was deleted/);
    await waitUntil(() => dead.some((n) => n.id === task.id), "the dead-letter notification");
    expect(dead.find((n) => n.id === task.id)).toMatchObject({ reason: "unrecoverable", attempts: 1 });
  });

  it("sends a task whose stored payload no longer matches the schema to dead without running it", async () => {
    const id = await fixture.bed.insertTask("strict", { count: "three" });
    await fixture.bed.wake([id]);
    await waitUntil(async () => (await fixture.bed.status(id)) === "dead", "the task to go dead");
    const row = await fixture.bed.row(id);
    expect(row.attempts).toBe(1);
    expect(row.last_error).toContain('Invalid payload for task "strict": count:');
    expect(handled).not.toContain(id);
    await waitUntil(() => dead.some((n) => n.id === id), "the dead-letter notification");
    expect(dead.find((n) => n.id === id)).toMatchObject({ reason: "invalid-payload" });
  });

  it("records a thrown non-Error as a string", async () => {
    const text = await fixture.prisma.task.enqueue("throws-value", { value: "plain words" });
    const object = await fixture.prisma.task.enqueue("throws-value", { value: { code: 42 } });
    const nothing = await fixture.prisma.task.enqueue("throws-value", { value: null });
    for (const { id } of [text, object, nothing]) await waitUntil(async () => (await fixture.bed.status(id)) === "dead", "the task to go dead");
    expect((await fixture.bed.row(text.id)).last_error).toBe("plain words");
    expect((await fixture.bed.row(object.id)).last_error).toBe('{"code":42}');
    expect((await fixture.bed.row(nothing.id)).last_error).toBe("null");
  });
});
