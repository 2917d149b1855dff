// The task list: a filter form (status, queue, name, key, enqueue time range), one page of tasks newest first with
// what is stuck highlighted, keyset paging, and "retry all dead" for a dead-filtered name.

import type { ListQuery } from "../list-query.js";
import { STATUS_FILTERS } from "../list-query.js";
import type { TaskListPage, TaskListRow } from "../../store/views.js";
import { formatCount, relative, shortId, timeTag, toDate } from "./format.js";
import { html, type Html } from "./html.js";
import { tasksHref } from "./links.js";

interface TaskListView {
  basePath: string;
  readOnly: boolean;
  csrf: string;
  now: Date;
  /** Known queues and names for the inputs' suggestions (empty without the browse index). */
  queues: string[];
  names: string[];
}

export function taskListPage(query: ListQuery, page: TaskListPage, view: TaskListView): Html {
  const base = view.basePath;
  const { form } = query;
  const current = { status: form.status, queue: form.queue, name: form.name, key: form.key, from: form.from, to: form.to };
  const filtered = Object.values(current).some(Boolean);
  const first = page.rows[0];
  const last = page.rows[page.rows.length - 1];
  return html` <h1>Tasks <span class="sub">newest first${filtered ? " · filtered" : ""}</span></h1>
    ${query.problems.map((problem) => html`<div class="notice warn">${problem}</div>`)}
    <section class="panel">
      <form class="filters" method="get" action="${base}/tasks">
        <label
          >Status
          <select name="status">
            <option value="">any</option>
            ${STATUS_FILTERS.map((s) => html`<option value="${s.value}" ${form.status === s.value ? html`selected` : ""}>${s.label}</option>`)}
          </select></label
        >
        <label>Queue <input name="queue" value="${form.queue}" list="known-queues" placeholder="any" autocomplete="off" /></label>
        <label>Task name <input name="name" value="${form.name}" list="known-names" placeholder="any" autocomplete="off" /></label>
        <label>Key <input name="key" value="${form.key}" placeholder="exact key" autocomplete="off" /></label>
        <label>Enqueued from (UTC) <input type="datetime-local" name="from" value="${form.from}" /></label>
        <label>to (UTC) <input type="datetime-local" name="to" value="${form.to}" /></label>
        <div class="actions"><button class="primary" type="submit">Apply</button>${filtered ? html`<a class="button" href="${base}/tasks">Reset</a>` : ""}</div>
        <datalist id="known-queues">${view.queues.map((q) => html`<option value="${q}"></option>`)}</datalist>
        <datalist id="known-names">${view.names.map((n) => html`<option value="${n}"></option>`)}</datalist>
      </form>
    </section>
    ${
      form.status === "dead" && form.name && !view.readOnly && page.rows.length > 0
        ? html`<div class="notice warn">
            Dead <b>${form.name}</b> tasks are listed.
            <form class="inline" method="post" action="${base}/actions/retry-dead" data-confirm="Retry every dead ${form.name} task? They run again from attempt 1.">
              <input type="hidden" name="csrf" value="${view.csrf}" /><input type="hidden" name="name" value="${form.name}" />
              <input type="hidden" name="return" value="${tasksHref(base, current)}" />
              <button class="small" type="submit">Retry all dead ${form.name}</button>
            </form>
          </div>`
        : ""
    }
    <section class="panel flush">
      ${
        page.rows.length === 0
          ? html`<div class="empty">No task matches${filtered ? " these filters" : ""}.</div>`
          : html`<table class="tasks">
              <thead>
                <tr>
                  <th>Task</th>
                  <th>Status</th>
                  <th>Queue</th>
                  <th class="num">Attempts</th>
                  <th>Enqueued</th>
                  <th>Due / finished</th>
                  <th>Lease</th>
                  <th>Last error · payload</th>
                </tr>
              </thead>
              <tbody>
                ${page.rows.map((row) => taskRow(row, view))}
              </tbody>
            </table>`
      }
      <nav class="pager" aria-label="Pages">
        ${page.hasNewer && first ? html`<a href="${tasksHref(base, { ...current, after: first.id })}" rel="prev">← Newer</a>` : html`<span class="disabled">← Newer</span>`}
        ${query.page.before || query.page.after ? html`<a href="${tasksHref(base, current)}">Newest</a>` : ""}
        ${page.hasOlder && last ? html`<a href="${tasksHref(base, { ...current, before: last.id })}" rel="next">Older →</a>` : html`<span class="disabled">Older →</span>`}
      </nav>
    </section>`;
}

function taskRow(row: TaskListRow, view: TaskListView): Html {
  const now = view.now;
  const leaseExpires = toDate(row.leaseExpiresAt);
  const expired = row.status === "running" && leaseExpires !== null && leaseExpires < now;
  const runAt = toDate(row.runAt);
  const due = row.status === "pending" && runAt !== null && runAt <= now;
  const waitSeconds = due && runAt ? (now.getTime() - runAt.getTime()) / 1000 : 0;
  return html`<tr data-task-id="${row.id}">
    <td>
      <a href="${view.basePath}/tasks/${row.id}" title="${row.id}">${row.name}</a><br /><span class="mono muted">${shortId(row.id)}</span
      >${row.key ? html` <span class="muted" title="key">· ${row.key}</span>` : ""}
    </td>
    <td><span class="pill ${row.status}">${row.status}</span>${expired ? html` <span class="pill expired">lease expired</span>` : ""}</td>
    <td class="mono">${row.queue}</td>
    <td class="num">${formatCount(row.attempts)} / ${formatCount(row.maxAttempts)}</td>
    <td>${timeTag(row.createdAt, now)}</td>
    <td class="${waitSeconds > 300 ? "alert" : waitSeconds > 30 ? "warn" : ""}">
      ${
        row.finishedAt
          ? timeTag(row.finishedAt, now)
          : row.status === "pending"
            ? due
              ? html`due <span title="${runAt?.toISOString() ?? ""}">${relative(runAt, now)}</span>`
              : html`runs ${timeTag(row.runAt, now)}`
            : html`<span class="muted">—</span>`
      }
    </td>
    <td>
      ${
        row.status === "running"
          ? html`<span class="mono">${row.leaseOwner ?? "?"}</span><br /><span class="${expired ? "alert" : "muted"}"
                >${expired ? "expired " : "until "}${relative(leaseExpires, now)}</span
              >`
          : html`<span class="muted">—</span>`
      }
    </td>
    <td class="ellipsis">
      ${row.errorLine ? html`<span class="alert" title="${row.errorLine}">${row.errorLine}</span><br />` : ""}<span class="mono muted" title="${row.payloadPreview}"
        >${row.payloadPreview}</span
      >
    </td>
  </tr>`;
}
