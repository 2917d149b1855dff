// Bad input: task names full of SQL and AMQP metacharacters, and a queue name with the punctuation queues allow, go
// end to end (enqueue → wake-up → claim → run → succeeded) as plain data; queue names AMQP would misread are refused.

import { afterAll, beforeAll, expect, it } from "vitest";
import { z } from "zod";
import { defineTasks, TaskDefinitionError } from "../../src/index.js";
import { type Worker } from "../../src/worker/create-worker.js";
import { waitUntil } from "../support/wait.js";
import { recordingLogger, WorkerTestBed } from "./harness.js";

const SQL_NAME = `report'); DROP TABLE tasks; --`;
const AMQP_NAME = "billing.*.# amq.direct";
const ODD_NAME = `画像 "quoted" \\ 100%_done $1 ::uuid`;
const QUEUE = "mail.v2-eu_1";

const ran: Array<{ name: string; payload: unknown }> = [];
const record = async (payload: unknown, ctx: { task: { name: string } }) => {
  ran.push({ name: ctx.task.name, payload });
  return { name: ctx.task.name };
};
const tasks = defineTasks({
  [SQL_NAME]: { payload: z.object({ text: z.string() }), handler: record },
  [AMQP_NAME]: { payload: z.object({ text: z.string() }), queue: QUEUE, handler: record },
  [ODD_NAME]: { payload: z.object({ text: z.string() }), handler: record },
});

let bed: WorkerTestBed;
let prisma: ReturnType<WorkerTestBed["prisma"]>;
let worker: Worker;
const logger = recordingLogger();

beforeAll(async () => {
  bed = await WorkerTestBed.create();
  prisma = bed.prisma(tasks);
  // No polling to speak of: only the wake-ups, through the queues named after QUEUE, can start these tasks.
  worker = await bed.startWorker({ tasks, logger, pollIntervalMs: 600_000 });
});

afterAll(async () => {
  await bed?.closeAll(["default", QUEUE]);
});

it("runs tasks whose names hold quotes, SQL, AMQP wildcards and unicode, stored and reported verbatim", async () => {
  const payload = { text: `'; DELETE FROM tasks; -- # * ${"\u{1F600}"}` };
  const enqueued = await prisma.$transaction(async (tx) => [
    await tx.task.enqueue(SQL_NAME, payload),
    await tx.task.enqueue(AMQP_NAME, payload),
    await tx.task.enqueue(ODD_NAME, payload),
  ]);
  for (const task of enqueued) await waitUntil(async () => (await bed.status(task.id)) === "succeeded", `task ${task.name} to succeed`);
  for (const [index, name] of [SQL_NAME, AMQP_NAME, ODD_NAME].entries()) {
    const row = await bed.row(enqueued[index]!.id);
    expect(row).toMatchObject({ name, payload, result: { name }, attempts: 1 });
  }
  expect(ran.map((run) => run.name).sort()).toEqual([SQL_NAME, AMQP_NAME, ODD_NAME].sort());
  expect((await bed.row(enqueued[1]!.id)).queue).toBe(QUEUE);
  // Every one was woken through its queue, none found by polling.
  for (const task of enqueued) expect(logger.find("task claimed", { taskId: task.id, via: "wakeup" })).toHaveLength(1);
  const { rows } = await bed.sql.query("SELECT count(*)::int AS n FROM tasks");
  expect(rows[0].n).toBe(3);
});

it("refuses queue names that AMQP or a shell would misread, naming the task and the rule", () => {
  for (const queue of ["a#b", "mail.*", "two words", "q'; --", "", ".hidden"]) {
    expect(() => defineTasks({ t: { payload: z.object({}), queue } })).toThrow(TaskDefinitionError);
    expect(() => defineTasks({ t: { payload: z.object({}), queue } })).toThrow(/is not a queue name: use 1-100 letters, digits, "_", "." or "-"/);
  }
  expect(() => defineTasks({ "bad\nname": { payload: z.object({}) } })).toThrow(/holds control characters/);
});
