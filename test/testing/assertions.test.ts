// recordEnqueues() on every dialect: what commits through the app's client is recorded, what rolls back is not, what
// another client (another test process) commits is never seen, and each failing assertion says what WAS enqueued.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { recordEnqueues, TaskAssertionError, type EnqueueRecorder } from "../../src/testing/index.js";
import { TaskQueueConfigError, UnknownTaskError } from "../../src/index.js";
import { appTasks, requestReport, Rollback, type AppClient } from "./app.js";
import { appDatabase, TESTING_DIALECTS, type AppDatabase } from "./dialects.js";

describe.each(TESTING_DIALECTS)("recordEnqueues on $name", (harness) => {
  let db: AppDatabase;
  let prisma: AppClient;
  let recorder: EnqueueRecorder<typeof appTasks>;

  beforeAll(async () => {
    db = await appDatabase(harness);
    prisma = db.client();
  });
  afterAll(async () => {
    await db?.close();
  });
  beforeEach(() => {
    recorder?.stop();
    recorder = recordEnqueues<typeof appTasks>(prisma);
  });

  it("asserts a committed enqueue by name, partial payload and options, and returns it", async () => {
    const { reportId, task } = await requestReport(prisma, { delayMs: 60_000 });
    const found = recorder.assertEnqueued("send-report", {
      payload: { reportId },
      queue: "reports",
      key: `report:${reportId}`,
      delayMs: 60_000,
      maxAttempts: 3,
      runAt: task.runAt,
      created: true,
    });
    expect(found).toMatchObject({ id: task.id, name: "send-report", payload: { reportId }, priority: 0, due: false });
    recorder.assertEnqueued("send-report", { payload: { reportId: expect.stringMatching(/^[0-9a-f-]{36}$/) } });
    recorder.assertEnqueued("send-report", { payload: (payload: unknown) => (payload as { reportId: string }).reportId === reportId });
    recorder.refuteEnqueued("audit");
    expect(recorder.enqueued()).toHaveLength(1);
  });

  it("fails with a message that lists what was enqueued and why it did not match", async () => {
    const { reportId } = await requestReport(prisma);
    await prisma.task.enqueue("audit", { event: "report-requested" });
    let error: unknown;
    try {
      recorder.assertEnqueued("send-report", { payload: { reportId: "someone-else" }, queue: "reports" });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(TaskAssertionError);
    const message = (error as Error).message;
    expect(message).toContain(`Expected task "send-report" to be enqueued with payload {"reportId":"someone-else"}, queue "reports"`);
    expect(message).toContain(`none of the 1 "send-report" tasks matches`);
    expect(message).toContain(`1. "send-report" payload {"reportId":"${reportId}"}, queue "reports", key "report:${reportId}", maxAttempts 3`);
    expect(message).toContain(`— payload.reportId: expected "someone-else", got "${reportId}"`);
    expect(message).toContain(`2. "audit" payload {"event":"report-requested"}, queue "default", maxAttempts 5`);
    expect(() => recorder.assertEnqueued("send-report", { queue: "default" })).toThrow(`— queue: expected "default", got "reports"`);
    expect(() => recorder.assertEnqueued("close-report")).toThrow(`Expected task "close-report" to be enqueued, but no task "close-report" was enqueued.`);
  });

  it("records nothing for a rolled-back transaction", async () => {
    await expect(requestReport(prisma, { rollback: true })).rejects.toBeInstanceOf(Rollback);
    recorder.assertNothingEnqueued();
    expect(() => recorder.assertEnqueued("send-report")).toThrow(
      new TaskAssertionError(
        `Expected task "send-report" to be enqueued, but nothing was enqueued through this client since the recorder started (or was last cleared).`,
      ),
    );
  });

  it("refutes: passes when nothing matches, and lists the matching enqueues when something does", async () => {
    const { reportId } = await requestReport(prisma);
    recorder.refuteEnqueued("send-report", { payload: { reportId: "another" } });
    recorder.refuteEnqueued("audit");
    expect(() => recorder.refuteEnqueued("send-report", { payload: { reportId } })).toThrow(
      `Expected no task "send-report" to be enqueued with payload {"reportId":"${reportId}"}, but 1 was:\n  1. "send-report" payload {"reportId":"${reportId}"}`,
    );
    expect(() => recorder.assertNothingEnqueued()).toThrow(/^Expected nothing to be enqueued, but 1 task was through this client .*\n {2}1\. "send-report"/);
  });

  it("records enqueues outside transactions, enqueueMany, a batch $transaction and nested transactions, once each", async () => {
    await prisma.task.enqueue("audit", { event: "autocommit" });
    await prisma.task.enqueueMany([
      { name: "audit", payload: { event: "many-1" } },
      { name: "audit", payload: { event: "many-2" }, options: { priority: 7 } },
    ]);
    await (prisma as unknown as { $transaction(items: unknown[]): Promise<unknown> }).$transaction([prisma.task.enqueue("audit", { event: "batch" })]);
    await prisma.$transaction(async (tx) => {
      await tx.task.enqueue("audit", { event: "outer" });
      await tx.$transaction(async (inner) => inner.task.enqueue("audit", { event: "nested" }));
      await tx
        .$transaction(async (inner) => {
          await inner.task.enqueue("audit", { event: "nested, rolled back" });
          throw new Rollback("inner gives up");
        })
        .catch(() => {});
    });
    const events = recorder.enqueued("audit").map((record) => (record.payload as { event: string }).event);
    expect(events.sort()).toEqual(["autocommit", "batch", "many-1", "many-2", "nested", "outer"]);
    recorder.assertEnqueued("audit", { payload: { event: "many-2" }, priority: 7 });
    expect(recorder.enqueued("audit", { priority: 7 })).toHaveLength(1);
  });

  it("lists a repeated dedupe key as created: false, the existing task's id", async () => {
    const first = await prisma.task.enqueue("audit", { event: "once" }, { key: "audit:once" });
    await prisma.task.enqueue("audit", { event: "twice" }, { key: "audit:once" });
    const [one, two] = recorder.enqueued("audit");
    expect(one).toMatchObject({ id: first.id, created: true });
    expect(two).toMatchObject({ id: first.id, created: false, payload: { event: "twice" } });
    expect(() => recorder.assertEnqueued("audit", { payload: { event: "twice" }, created: true })).toThrow("— created: expected true, got false");
  });

  it("does not see what another client commits to the same database, nor what committed before it started", async () => {
    const before = await requestReport(prisma);
    const otherApp = db.client();
    const recorderOfOther = recordEnqueues<typeof appTasks>(otherApp);
    const mine = recordEnqueues<typeof appTasks>(prisma);
    const theirs = await requestReport(otherApp);
    mine.assertNothingEnqueued();
    recorderOfOther.assertEnqueued("send-report", { payload: { reportId: theirs.reportId } });
    recorderOfOther.refuteEnqueued("send-report", { payload: { reportId: before.reportId } });
    recorder.assertEnqueued("send-report", { payload: { reportId: before.reportId } });
    recorder.refuteEnqueued("send-report", { payload: { reportId: theirs.reportId } });
    mine.stop();
    recorderOfOther.stop();
  });

  it("forgets on clear() and stops recording on stop()", async () => {
    await prisma.task.enqueue("audit", { event: "before clear" });
    recorder.clear();
    recorder.assertNothingEnqueued();
    await prisma.task.enqueue("audit", { event: "after clear" });
    recorder.assertEnqueued("audit", { payload: { event: "after clear" } });
    recorder.stop();
    await prisma.task.enqueue("audit", { event: "after stop" });
    recorder.refuteEnqueued("audit", { payload: { event: "after stop" } });
    expect(recorder.enqueued()).toHaveLength(1);
  });
});

describe("bad input", () => {
  let db: AppDatabase;
  let prisma: AppClient;
  beforeAll(async () => {
    db = await appDatabase(TESTING_DIALECTS[1]!);
    prisma = db.client();
  });
  afterAll(async () => {
    await db?.close();
  });

  it("refuses a client that is not extended with taskQueue(), naming the fix", () => {
    expect(() => recordEnqueues({})).toThrow(TaskQueueConfigError);
    expect(() => recordEnqueues({})).toThrow(
      'Invalid option "prisma": recordEnqueues() takes the Prisma client extended with taskQueue() (the one your app enqueues through: ' +
        "new PrismaClient({ adapter }).$extends(taskQueue({ tasks }))), not a transaction client or the client before $extends; got a client without prisma.$taskQueue.",
    );
    expect(() => recordEnqueues(undefined)).toThrow("; got undefined.");
  });

  it("refuses a task name the registry lacks, so a typo cannot make refuteEnqueued pass", () => {
    const recorder = recordEnqueues(prisma);
    expect(() => recorder.refuteEnqueued("send-reprot")).toThrow(UnknownTaskError);
    expect(() => recorder.refuteEnqueued("send-reprot")).toThrow(
      'Unknown task "send-reprot". Known tasks: "send-report", "audit", "close-report", "enqueue-only". Add it to defineTasks() or fix the name.',
    );
    recorder.stop();
  });

  it("refuses an unknown match field and a bad runAt, naming the fields it knows", () => {
    const recorder = recordEnqueues(prisma);
    expect(() => recorder.assertEnqueued("audit", { quue: "x" } as object)).toThrow(
      'Invalid option "assertEnqueued() match.quue": unknown field. Use one of: payload, queue, key, priority, maxAttempts, delayMs, runAt, created.',
    );
    expect(() => recorder.assertEnqueued("audit", { runAt: "tomorrow" } as object)).toThrow(
      'Invalid option "assertEnqueued() match.runAt": must be a valid Date, got "tomorrow".',
    );
    expect(() => recorder.enqueued("audit", "x" as unknown as object)).toThrow('Invalid option "enqueued() match": expected an object such as');
    recorder.stop();
  });
});
