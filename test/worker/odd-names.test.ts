// Bad input: task names full of SQL and AMQP metacharacters, and a queue name with the punctuation queues allow, go
// end to end (enqueue → wake-up → claim → run → succeeded) as plain data; queue names AMQP would misread are refused.

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTasks, TaskDefinitionError } from "../../src/index.js";
import { waitUntil } from "../support/wait.js";
import { WORKER_DIALECTS, workerFixture } from "./harness.js";

const SQL_NAME = `report'); DROP TABLE tasks; --`;
const AMQP_NAME = "billing.*.# amq.direct";
const ODD_NAME = `画像 "quoted" \\ 100%_done $1 ::uuid`;
const QUEUE = "mail.v2-eu_1";

const ran: Array<{ id: string; name: string; payload: unknown }> = [];
const record = async (payload: unknown, ctx: { task: { id: string; name: string } }) => {
  ran.push({ id: ctx.task.id, name: ctx.task.name, payload });
  return { name: ctx.task.name };
};
const tasks = defineTasks({
  [SQL_NAME]: { payload: z.object({ text: z.string() }), handler: record },
  [AMQP_NAME]: { payload: z.object({ text: z.string() }), queue: QUEUE, handler: record },
  [ODD_NAME]: { payload: z.object({ text: z.string() }), handler: record },
});

describe.each(WORKER_DIALECTS)("odd names ($name)", (dialect) => {
  const fixture = workerFixture(tasks, { dialect, queues: ["default", QUEUE], worker: { pollIntervalMs: 600_000 } }); // only wake-ups start these tasks

  it("runs tasks whose names hold quotes, SQL, AMQP wildcards and unicode, stored and reported verbatim", async () => {
    const payload = { text: `'; DELETE FROM tasks; -- # * ${"\u{1F600}"}` };
    const enqueued = await fixture.prisma.$transaction(async (tx) => [
      await tx.task.enqueue(SQL_NAME, payload),
      await tx.task.enqueue(AMQP_NAME, payload),
      await tx.task.enqueue(ODD_NAME, payload),
    ]);
    for (const task of enqueued) await waitUntil(async () => (await fixture.bed.status(task.id)) === "succeeded", `task ${task.name} to succeed`);
    for (const [index, name] of [SQL_NAME, AMQP_NAME, ODD_NAME].entries()) {
      const row = await fixture.bed.row(enqueued[index]!.id);
      expect(row).toMatchObject({ name, payload, result: { name }, attempts: 1 });
    }
    const ids = enqueued.map((task) => task.id);
    expect(
      ran
        .filter((run) => ids.includes(run.id))
        .map((run) => run.name)
        .sort(),
    ).toEqual([SQL_NAME, AMQP_NAME, ODD_NAME].sort());
    expect((await fixture.bed.row(enqueued[1]!.id)).queue).toBe(QUEUE);
    // Every one was woken through its queue, none found by polling.
    for (const task of enqueued) expect(fixture.logger.find("task claimed", { taskId: task.id, via: "wakeup" })).toHaveLength(1);
    expect((await fixture.bed.store.countTasks()).reduce((sum, count) => sum + count.count, 0)).toBe(3);
  });
});

it("refuses queue names that AMQP or a shell would misread, naming the task and the rule", () => {
  for (const queue of ["a#b", "mail.*", "two words", "q'; --", "", ".hidden"]) {
    expect(() => defineTasks({ t: { payload: z.object({}), queue } })).toThrow(TaskDefinitionError);
    expect(() => defineTasks({ t: { payload: z.object({}), queue } })).toThrow(/is not a queue name: use 1-100 letters, digits, "_", "." or "-"/);
  }
  expect(() => defineTasks({ "bad\nname": { payload: z.object({}) } })).toThrow(/holds control characters/);
});
