// One task: a diagnosis line (what is wrong and since when), its actions, every field and timestamp, the payload and
// result as pretty JSON and the last error with its stack. Every value is escaped: payloads are user data.

import type { TaskDetailRow } from "../sql/task-detail.js";
import { formatCount, formatDuration, formatUtc, prettyJson, relative, toDate } from "./format.js";
import { html, type Html } from "./html.js";
import { tasksHref } from "./links.js";

export interface TaskDetailView {
  basePath: string;
  readOnly: boolean;
  csrf: string;
  /** Whether actions publish a wake-up at once (a broker URL is configured). */
  wakeups: boolean;
}

export function taskDetailPage(task: TaskDetailRow, view: TaskDetailView): Html {
  const base = view.basePath;
  const now = toDate(task.now) ?? new Date();
  return html`
<div class="title-row">
  <h1>${task.name}</h1>
  <span class="pill ${task.status}" data-testid="status">${task.status}</span>
  <span class="mono muted">${task.id}</span>
  <div class="actions">${view.readOnly ? "" : actions(task, view, now)}</div>
</div>
${diagnosis(task, now)}
<div class="grid2">
  <section class="panel">
    <h2>Task</h2>
    <dl class="facts">
      <dt>Queue</dt><dd><a class="mono" href="${tasksHref(base, { queue: task.queue })}">${task.queue}</a></dd>
      <dt>Name</dt><dd><a href="${tasksHref(base, { name: task.name })}">${task.name}</a></dd>
      <dt>Attempts</dt><dd>${formatCount(task.attempts)} of ${formatCount(task.max_attempts)}</dd>
      <dt>Priority</dt><dd>${task.priority}</dd>
      <dt>Key</dt><dd>${task.key === null ? html`<span class="muted">none</span>` : html`<span class="mono">${task.key}</span>`}</dd>
      <dt>Lease owner</dt><dd>${task.lease_owner === null ? html`<span class="muted">none</span>` : html`<span class="mono">${task.lease_owner}</span>`}</dd>
    </dl>
  </section>
  <section class="panel">
    <h2>Timestamps <span class="heading-note">(UTC)</span></h2>
    <dl class="facts">
      ${stamp("Created", task.created_at, now)}
      ${stamp("Run at", task.run_at, now)}
      ${stamp("Wake-up published", task.published_at, now)}
      ${stamp("Lease expires", task.lease_expires_at, now)}
      ${stamp("Updated", task.updated_at, now)}
      ${stamp("Finished", task.finished_at, now)}
    </dl>
  </section>
</div>
<section class="panel"><h2>Payload</h2><pre data-testid="payload">${prettyJson(task.payload)}</pre></section>
${task.last_error !== null ? html`<section class="panel"><h2>Last error${task.status === "succeeded" ? html` <span class="heading-note">(from an earlier attempt)</span>` : ""}</h2><pre class="error" data-testid="last-error">${task.last_error}</pre></section>` : ""}
${task.status === "succeeded" || task.result !== null ? html`<section class="panel"><h2>Result</h2><pre data-testid="result">${prettyJson(task.result)}</pre></section>` : ""}
<p><a href="${base}/tasks">← All tasks</a></p>`;
}

function stamp(label: string, value: Date | string | null, now: Date): Html {
  return html`<dt>${label}</dt><dd>${value === null ? html`<span class="muted">—</span>` : html`${formatUtc(value)} <span class="muted">· ${relative(value, now)}</span>`}</dd>`;
}

function diagnosis(task: TaskDetailRow, now: Date): Html {
  const seconds = (value: Date | string | null) => {
    const date = toDate(value);
    return date ? (now.getTime() - date.getTime()) / 1000 : 0;
  };
  const firstLine = task.last_error?.split("\n", 1)[0] ?? "";
  if (task.status === "running") {
    const expiredFor = seconds(task.lease_expires_at);
    if (expiredFor > 0) {
      return html`<div class="notice bad">Stuck: the lease of <span class="mono">${task.lease_owner ?? "?"}</span> expired ${formatDuration(expiredFor)} ago.
        The worker died or stalled without heartbeating; a leading cleaner recovers the task by its recovery policy.</div>`;
    }
    return html`<div class="notice ok">Running on <span class="mono">${task.lease_owner ?? "?"}</span> for ${formatDuration(seconds(task.updated_at))} since the last heartbeat; lease held for ${formatDuration(-expiredFor)} more.</div>`;
  }
  if (task.status === "pending") {
    const dueFor = seconds(task.run_at);
    if (dueFor < 0) {
      return html`<div class="notice ok">Scheduled: runs ${relative(task.run_at, now)}${task.attempts > 0 ? ` (retry ${task.attempts + 1} of ${task.max_attempts} after: ${firstLine})` : ""}.</div>`;
    }
    const kind = dueFor > 300 ? "bad" : dueFor > 30 ? "warn" : "ok";
    const why =
      task.published_at === null
        ? "No wake-up was published for it yet: the cleaner publishes it on its next sweep (is one leading?)."
        : `Its wake-up was published ${relative(task.published_at, now)}: is a worker consuming queue "${task.queue}"?`;
    return html`<div class="notice ${kind}">Due for ${formatDuration(dueFor)} and not claimed. ${why}${task.attempts > 0 ? ` Previous attempt failed: ${firstLine}` : ""}</div>`;
  }
  if (task.status === "dead") {
    return html`<div class="notice bad">Dead after ${task.attempts} of ${task.max_attempts} attempts, ${relative(task.finished_at, now)}${firstLine ? `: ${firstLine}` : "."}</div>`;
  }
  if (task.status === "cancelled") return html`<div class="notice warn">Cancelled ${relative(task.finished_at, now)}; it will not run unless retried.</div>`;
  return html`<div class="notice ok">Succeeded ${relative(task.finished_at, now)} after ${task.attempts} attempt(s).</div>`;
}

function actions(task: TaskDetailRow, view: TaskDetailView, now: Date): Html {
  const base = view.basePath;
  const form = (action: string, label: string, kind: string, confirm?: string) =>
    html`<form class="inline" method="post" action="${base}/tasks/${task.id}/${action}"${confirm ? html` data-confirm="${confirm}"` : ""}>
      <input type="hidden" name="csrf" value="${view.csrf}"><button class="${kind}" type="submit" data-action="${action}">${label}</button></form>`;
  const buttons: Html[] = [];
  if (task.status === "dead" || task.status === "cancelled") buttons.push(form("retry", "Retry", "primary"));
  if (task.status === "pending") {
    const runAt = toDate(task.run_at);
    buttons.push(form("run-now", runAt && runAt > now ? "Run now" : "Wake up again", ""));
    buttons.push(form("cancel", "Cancel", "danger", "Cancel this task? It will not run."));
  }
  return html`${buttons}`;
}
