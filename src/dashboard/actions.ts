// The operator actions behind the dashboard's buttons: retry a dead or cancelled task, retry all dead tasks of a name,
// cancel a pending task, run a delayed task now, pause and resume a queue. Each is logged with what it changed and who asked, and tasks it made
// runnable get their wake-up at once when a broker is configured.

import type { WakeupTarget } from "../store/task-writes.js";
import type { DashboardContext } from "./dashboard-context.js";

export type ActionName = "retry" | "cancel" | "run-now" | "retry-dead" | "pause" | "resume";

/** Wake-ups a resume sends itself; the cleaner sends the rest of a larger backlog, marked unpublished. */
const RESUME_WAKE_LIMIT = 10_000;

interface ActionResult {
  action: ActionName;
  /** The tasks made runnable, to wake. */
  changed: WakeupTarget[];
  /** Tasks (or, for pause and resume, queues) changed. */
  count: number;
  /** Wake-ups the broker confirmed. */
  woken: number;
}

/** Runs one action, publishes the wake-ups of the tasks it made runnable, and logs it. */
export async function runAction(
  context: DashboardContext,
  action: ActionName,
  target: { id?: string; name?: string; queue?: string },
  requester: string | undefined,
): Promise<ActionResult> {
  const { store, settings, wakeups } = context;
  let changed: WakeupTarget[] = [];
  let count: number | undefined;
  if (action === "retry") changed = await store.retryTask(target.id!);
  else if (action === "cancel") changed = await store.cancelTask(target.id!);
  else if (action === "run-now") changed = await store.runTaskNow(target.id!);
  else if (action === "pause") count = (await store.pauseQueue(target.queue!)) ? 1 : 0;
  else if (action === "resume") {
    const { resumed, due } = await store.resumeQueue(target.queue!, RESUME_WAKE_LIMIT);
    changed = due;
    count = resumed ? 1 : 0;
  } else changed = await store.retryDeadTasks({ name: target.name, limit: 10_000 });
  count ??= changed.length;
  const woken = changed.length === 0 || action === "cancel" ? 0 : await wakeups.publish(changed);
  settings.logger.info("dashboard action", {
    action,
    taskId: target.id,
    taskName: target.name,
    queue: target.queue,
    changed: count,
    ids: changed.slice(0, 20).map((task) => task.id),
    woken,
    requester: requester ?? "unknown",
  });
  return { action, changed, count, woken };
}

/** The notice shown after an action, as a fixed message code and a count (never user text in a URL). */
export function actionNotice(result: ActionResult): { code: string; count: number } {
  if (result.count === 0) return { code: `${result.action}-none`, count: 0 };
  return { code: result.action, count: result.count };
}

const MESSAGES: Record<string, (count: number) => { kind: "ok" | "warn"; text: string }> = {
  retry: () => ({ kind: "ok", text: "Retried: the task is pending again, due now, from attempt 1." }),
  "retry-none": () => ({ kind: "warn", text: "Nothing retried: the task is no longer dead or cancelled (someone else acted first?)." }),
  cancel: () => ({ kind: "ok", text: "Cancelled: the task will not run." }),
  "cancel-none": () => ({ kind: "warn", text: "Not cancelled: the task is no longer pending (it may be running or finished)." }),
  "run-now": () => ({ kind: "ok", text: "The task is due now: the next free worker runs it." }),
  "run-now-none": () => ({ kind: "warn", text: "Not changed: the task is no longer pending." }),
  "retry-dead": (count) => ({ kind: "ok", text: `Retried ${count} dead task${count === 1 ? "" : "s"}: pending again, from attempt 1.` }),
  "retry-dead-none": () => ({ kind: "warn", text: "No dead task to retry." }),
  pause: () => ({ kind: "ok", text: "Paused: no worker claims the queue's tasks until it is resumed; running ones finish." }),
  "pause-none": () => ({ kind: "warn", text: "The queue was paused already." }),
  resume: () => ({ kind: "ok", text: "Resumed: workers claim the queue's tasks again, and its due tasks are woken." }),
  "resume-none": () => ({ kind: "warn", text: "The queue was not paused." }),
};

/** The notice for `?done=<code>&n=<count>`, or undefined for an unknown code. */
export function noticeFor(code: string | null, count: number): { kind: "ok" | "warn"; text: string } | undefined {
  if (!code) return undefined;
  const message = MESSAGES[code];
  return message ? message(Number.isSafeInteger(count) ? count : 0) : undefined;
}
