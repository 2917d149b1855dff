// One task: a diagnosis line (what is wrong and since when), its actions, every field and timestamp, the payload and
// result as pretty JSON, the current error, the history of earlier errors, a workflow's steps and its children (and, for
// a child, the workflow that started it). Every value is escaped: user data.

import type { TaskDetail } from "../../store/views.js";
import type { ChildState, StepRecord } from "../../store/steps.js";
import { formatCount, formatDuration, formatUtc, prettyJson, relative, toDate } from "./format.js";
import { html, type Html } from "./html.js";
import { tasksHref } from "./links.js";

interface TaskDetailView {
  basePath: string;
  readOnly: boolean;
  csrf: string;
  /** Whether wake-ups are sent (RabbitMQ or NOTIFY); false when workers find tasks by polling. */
  wakeups: boolean;
}

export function taskDetailPage(task: TaskDetail, view: TaskDetailView, steps: readonly StepRecord[] = [], children: readonly ChildState[] = []): Html {
  const base = view.basePath;
  const now = toDate(task.now) ?? new Date();
  return html` <div class="title-row">
      <h1>${task.name}</h1>
      <span class="pill ${task.status}" data-testid="status">${task.status}</span>
      <span class="mono muted">${task.id}</span>
      <div class="actions">${view.readOnly ? "" : actions(task, view, now)}</div>
    </div>
    ${diagnosis(task, now, view.wakeups)}
    <div class="grid2">
      <section class="panel">
        <h2>Task</h2>
        <dl class="facts">
          <dt>Queue</dt>
          <dd><a class="mono" href="${tasksHref(base, { queue: task.queue })}">${task.queue}</a></dd>
          <dt>Name</dt>
          <dd><a href="${tasksHref(base, { name: task.name })}">${task.name}</a></dd>
          <dt>Attempts</dt>
          <dd>${formatCount(task.attempts)} of ${formatCount(task.maxAttempts)}</dd>
          <dt>Priority</dt>
          <dd>${task.priority}</dd>
          <dt>Key</dt>
          <dd>${task.key === null ? html`<span class="muted">none</span>` : html`<span class="mono">${task.key}</span>`}</dd>
          <dt>Lease owner</dt>
          <dd>${task.leaseOwner === null ? html`<span class="muted">none</span>` : html`<span class="mono">${task.leaseOwner}</span>`}</dd>
          ${
            task.parentId === null
              ? ""
              : html`<dt>Started by</dt>
                  <dd data-testid="parent"><a class="mono" href="${base}/tasks/${task.parentId}">${task.parentId}</a></dd>`
          }
          <dt>Finished by</dt>
          <dd data-testid="finished-by">${task.finishedBy === null ? html`<span class="muted">none</span>` : html`<span class="mono">${task.finishedBy}</span>`}</dd>
        </dl>
      </section>
      <section class="panel">
        <h2>Timestamps <span class="heading-note">(UTC)</span></h2>
        <dl class="facts">
          ${stamp("Created", task.createdAt, now)} ${stamp("Run at", task.runAt, now)} ${stamp("Wake-up published", task.publishedAt, now)}
          ${stamp("Lease expires", task.leaseExpiresAt, now)} ${stamp("Updated", task.updatedAt, now)} ${stamp("Finished", task.finishedAt, now)}
        </dl>
      </section>
    </div>
    <section class="panel">
      <h2>Payload</h2>
      <pre data-testid="payload">${prettyJson(task.payload)}</pre>
    </section>
    ${
      task.lastError !== null
        ? html`<section class="panel">
            <h2>Last error${task.status === "succeeded" ? html` <span class="heading-note">(from an earlier attempt)</span>` : ""}</h2>
            <pre class="error" data-testid="last-error">${task.lastError}</pre>
          </section>`
        : ""
    }
    ${errorHistory(task, now)} ${workflowSteps(steps, now)} ${workflowChildren(children, base)}
    ${
      task.status === "succeeded" || task.result !== null
        ? html`<section class="panel">
            <h2>Result</h2>
            <pre data-testid="result">${prettyJson(task.result)}</pre>
          </section>`
        : ""
    }
    <p><a href="${base}/tasks">← All tasks</a></p>`;
}

/** The earlier failed attempts (at most 10, oldest first): history, shown after a success too. */
function errorHistory(task: TaskDetail, now: Date): Html | string {
  if (task.errors.length === 0) return "";
  const entries = task.errors.map(
    (entry) =>
      html`<li>
        <div><strong>Attempt ${entry.attempt}</strong> <span class="muted">· ${formatUtc(entry.at)} · ${relative(entry.at, now)}</span></div>
        <pre class="error">${entry.error}</pre>
      </li>`,
  );
  return html`<section class="panel">
    <h2>Error history <span class="heading-note">(last ${task.errors.length} failed attempts, oldest first)</span></h2>
    <ol class="error-history" data-testid="error-history">
      ${entries}
    </ol>
  </section>`;
}

/** A workflow's steps in order: kind, name, the run that recorded it, when, and its result, wake-up or wait. */
function workflowSteps(steps: readonly StepRecord[], now: Date): Html | string {
  if (steps.length === 0) return "";
  const rows = steps.map(
    (step) =>
      html`<tr>
        <td>${step.seq}</td>
        <td>${step.kind}</td>
        <td class="mono">${step.name}</td>
        <td>${step.attempt}</td>
        <td>${formatUtc(step.createdAt)} <span class="muted">· ${relative(step.createdAt, now)}</span></td>
        <td>${stepOutcome(step, now)}</td>
      </tr>`,
  );
  return tablePanel("Steps", `${steps.length}, in order`, "steps", ["#", "Kind", "Name", "Run", "Recorded (UTC)", "Result"], rows);
}

/** The tasks a workflow started as its children, oldest first, each with its status and, when dead, its error. */
function workflowChildren(children: readonly ChildState[], base: string): Html | string {
  if (children.length === 0) return "";
  const rows = children.map(
    (child) =>
      html`<tr>
        <td><a class="mono" href="${base}/tasks/${child.id}">${child.id}</a></td>
        <td>${child.name}</td>
        <td><span class="pill ${child.status}">${child.status}</span></td>
        <td>${child.lastError === null ? "" : html`<span class="mono">${child.lastError.split("\n")[0]}</span>`}</td>
      </tr>`,
  );
  return tablePanel("Children", `${children.length}, oldest first`, "children", ["Task", "Name", "Status", "Error"], rows);
}

/** A panel holding one table: its heading (with a note), the table's test id, its column headings and its rows. */
function tablePanel(title: string, note: string, testId: string, headings: readonly string[], rows: readonly Html[]): Html {
  return html`<section class="panel">
    <h2>${title} <span class="heading-note">(${note})</span></h2>
    <table data-testid="${testId}">
      <thead>
        <tr>
          ${headings.map((heading) => html`<th>${heading}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
  </section>`;
}

function stepOutcome(step: StepRecord, now: Date): Html | string {
  const until = step.until ? html`${formatUtc(step.until)} <span class="muted">· ${relative(step.until, now)}</span>` : html`<span class="muted">no deadline</span>`;
  if (step.kind === "sleep") return html`sleeps until ${until}`;
  if (step.kind === "wait" && step.state === "waiting") return html`waiting for its event until ${until}`;
  if (step.kind === "wait" && step.resultJson === null) return "timed out";
  return html`<pre>${prettyJson(JSON.parse(step.resultJson ?? "null") as unknown)}</pre>`;
}

function stamp(label: string, value: Date | string | null, now: Date): Html {
  return html`<dt>${label}</dt>
    <dd>${value === null ? html`<span class="muted">—</span>` : html`${formatUtc(value)} <span class="muted">· ${relative(value, now)}</span>`}</dd>`;
}

function diagnosis(task: TaskDetail, now: Date, wakeups: boolean): Html {
  const seconds = (value: Date | string | null) => {
    const date = toDate(value);
    return date ? (now.getTime() - date.getTime()) / 1000 : 0;
  };
  const firstLine = task.lastError?.split("\n", 1)[0] ?? "";
  if (task.status === "running") {
    const expiredFor = seconds(task.leaseExpiresAt);
    if (expiredFor > 0) {
      return html`<div class="notice bad">
        Stuck: the lease of <span class="mono">${task.leaseOwner ?? "?"}</span> expired ${formatDuration(expiredFor)} ago. The worker died or stalled without
        heartbeating; a leading cleaner recovers the task by its recovery policy.
      </div>`;
    }
    return html`<div class="notice ok">
      Running on <span class="mono">${task.leaseOwner ?? "?"}</span> for ${formatDuration(seconds(task.updatedAt))} since the last heartbeat; lease held for
      ${formatDuration(-expiredFor)} more.
    </div>`;
  }
  if (task.status === "pending") {
    const dueFor = seconds(task.runAt);
    if (dueFor < 0) {
      return html`<div class="notice ok">
        Scheduled: runs ${relative(task.runAt, now)}${task.attempts > 0 ? ` (retry ${task.attempts + 1} of ${task.maxAttempts} after: ${firstLine})` : ""}.
      </div>`;
    }
    const kind = dueFor > 300 ? "bad" : dueFor > 30 ? "warn" : "ok";
    const why = !wakeups
      ? `Workers find due tasks by polling (no wake-ups are sent here): is a worker running for queue "${task.queue}"?`
      : task.publishedAt === null
        ? "No wake-up was published for it yet: the cleaner publishes it on its next sweep (is one leading?)."
        : `Its wake-up was published ${relative(task.publishedAt, now)}: is a worker consuming queue "${task.queue}"?`;
    return html`<div class="notice ${kind}">
      Due for ${formatDuration(dueFor)} and not claimed. ${why}${task.attempts > 0 ? ` Previous attempt failed: ${firstLine}` : ""}
    </div>`;
  }
  if (task.status === "dead") {
    return html`<div class="notice bad">
      Dead after ${task.attempts} of ${task.maxAttempts} attempts, ${relative(task.finishedAt, now)}${firstLine ? `: ${firstLine}` : "."}
    </div>`;
  }
  if (task.status === "cancelled") return html`<div class="notice warn">Cancelled ${relative(task.finishedAt, now)}; it will not run unless retried.</div>`;
  return html`<div class="notice ok">Succeeded ${relative(task.finishedAt, now)} after ${task.attempts} attempt(s).</div>`;
}

function actions(task: TaskDetail, view: TaskDetailView, now: Date): Html {
  const base = view.basePath;
  const form = (action: string, label: string, kind: string, confirm?: string) =>
    html`<form class="inline" method="post" action="${base}/tasks/${task.id}/${action}" ${confirm ? html` data-confirm="${confirm}"` : ""}>
      <input type="hidden" name="csrf" value="${view.csrf}" /><button class="${kind}" type="submit" data-action="${action}">${label}</button>
    </form>`;
  const buttons: Html[] = [];
  if (task.status === "dead" || task.status === "cancelled") buttons.push(form("retry", "Retry", "primary"));
  if (task.status === "pending") {
    const runAt = toDate(task.runAt);
    buttons.push(form("run-now", runAt && runAt > now ? "Run now" : "Wake up again", ""));
    buttons.push(form("cancel", "Cancel", "danger", "Cancel this task? It will not run."));
  }
  return html`${buttons}`;
}
