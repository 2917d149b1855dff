// Every operator action, with its refusals: retry a dead or cancelled task, retry every dead task of a name, cancel a
// pending task, run a delayed task now. An action that does not apply changes nothing.

import { check, filterFor, type ConformanceCase } from "./case.js";

export const operatorActions: ConformanceCase = {
  name: "operator actions: retry, retry all dead, cancel, run now, and their refusals",
  async run(bed) {
    const prisma = bed.prisma();
    const later = { delayMs: 60_000 };
    const [deadA, deadB, waiting, toCancel, running] = await prisma.task.enqueueMany([
      { name: "fail", payload: {}, options: later },
      { name: "fail", payload: {}, options: later },
      { name: "run", payload: { ms: 0 }, options: later },
      { name: "run", payload: { ms: 0 }, options: later },
      { name: "run", payload: { ms: 0 } },
    ]);
    const store = bed.store;
    for (const id of [deadA!.id, deadB!.id]) await store.runTaskNow(id);
    await store.claimByIds([deadA!.id, deadB!.id, running!.id], filterFor("operator-test"));
    await store.fail("operator-test", [deadA!, deadB!].map((task) => ({ id: task.id, error: "boom", delayMs: 0, finalReason: "unrecoverable" })));

    // run now: a delayed pending task becomes due; a running one is refused.
    const now = await store.runTaskNow(waiting!.id);
    check(now.length === 1 && now[0]!.queue === "default", `run now did not change the delayed task: ${JSON.stringify(now)}`);
    const due = await store.findTask(waiting!.id);
    check(due && due.runAt.getTime() <= (await store.now()).getTime(), "run now left the task in the future");
    check((await store.runTaskNow(running!.id)).length === 0, "run now changed a running task");

    // cancel: a pending task never runs; cancelling again, or a running task, is refused.
    check((await store.cancelTask(toCancel!.id)).length === 1, "cancel refused a pending task");
    check((await store.findTask(toCancel!.id))?.status === "cancelled", "the cancelled task is not cancelled");
    check((await store.cancelTask(toCancel!.id)).length === 0, "cancel changed a cancelled task");
    check((await store.cancelTask(running!.id)).length === 0, "cancel changed a running task");

    // retry: a dead or cancelled task goes back to pending from attempt 1; a pending or running one is refused.
    check((await store.retryTask(deadA!.id)).length === 1, "retry refused a dead task");
    const retried = await store.findTask(deadA!.id);
    check(retried?.status === "pending" && retried.attempts === 0 && retried.leaseOwner === null && retried.finishedAt === null, `retried task: ${JSON.stringify(retried)}`);
    check((await store.retryTask(toCancel!.id)).length === 1, "retry refused a cancelled task");
    check((await store.retryTask(waiting!.id)).length === 0, "retry changed a pending task");
    check((await store.retryTask(running!.id)).length === 0, "retry changed a running task");
    check((await store.retryTask("01930000-0000-7000-8000-000000000000")).length === 0, "retry found a task that does not exist");

    // retry every dead task of a name.
    const all = await store.retryDeadTasks({ name: "fail", limit: 100 });
    check(all.length === 1 && all[0]!.id === deadB!.id, `retry-dead should take the one dead task left: ${JSON.stringify(all)}`);
    check((await store.retryDeadTasks({ name: "fail", limit: 100 })).length === 0, "retry-dead found dead tasks twice");
  },
};
