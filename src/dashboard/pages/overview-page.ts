// The overview: what needs attention (expired leases, waiting tasks, deaths, workers, cleaner), the last hour's
// throughput chart, the scaling signal, and counts per queue and task name with links into the filtered task list.

import type { OverviewData } from "../overview-data.js";
import type { GroupCount, StuckGroup } from "../../store/views.js";
import { formatCount, formatDuration, relative, shortId, timeTag } from "./format.js";
import { html, jsonScript, type Html } from "./html.js";
import { tasksHref } from "./links.js";
import { signalPanel } from "./signal-panel.js";

interface OverviewView {
  basePath: string;
  readOnly: boolean;
  csrf: string;
  /** Whether wake-ups are sent (RabbitMQ or NOTIFY); false when workers find tasks by polling and none is ever sent. */
  wakeups: boolean;
}

interface Row {
  queue: string;
  name: string;
  counts: Map<string, GroupCount>;
  stuck: StuckGroup | undefined;
  lastHour: { succeeded: number; dead: number } | undefined;
}

export function overviewPage(data: OverviewData, view: OverviewView): Html {
  const rows = groupRows(data);
  return html` <h1>
      Overview
      <span class="sub"
        ><label class="refresh"><input type="checkbox" id="auto-refresh" /> auto-refresh every 10 s</label></span
      >
    </h1>
    ${attentionCards(data, view)} ${chartPanel(data)} ${signalPanel(data.signal)} ${countsPanel(rows, data, view)}
    <div class="grid2">${workersPanel(data)} ${failuresPanel(data, view)}</div>
    ${queuesPanel(data, view)} ${schedulesPanel(data)}`;
}

/** Every queue with tasks or a row: paused or running, the declared limits, and a pause or resume button. */
function queuesPanel(data: OverviewData, view: OverviewView): Html {
  const base = view.basePath;
  const names = [...new Set([...data.counts.map((c) => c.queue), ...data.queues.map((q) => q.queue)])].sort();
  const rowOf = new Map(data.queues.map((q) => [q.queue, q]));
  return html` <section class="panel flush">
    <h2>Queues</h2>
    <table>
      <thead>
        <tr>
          <th>Queue</th>
          <th>State</th>
          <th>Limits</th>
          <th></th>
        </tr>
      </thead>
      <tbody>
        ${names.map((queue) => {
          const row = rowOf.get(queue);
          const pausedAt = row?.pausedAt ?? null;
          const paused = pausedAt !== null;
          const limits = [
            row?.concurrency != null ? `at most ${formatCount(row.concurrency)} running` : "",
            row?.rateLimit
              ? `at most ${formatCount(row.rateLimit.starts)} starts per ${row.rateLimit.perMs < 1000 ? `${row.rateLimit.perMs} ms` : formatDuration(row.rateLimit.perMs / 1000)}`
              : "",
          ].filter(Boolean);
          return html`<tr data-queue="${queue}">
            <td class="mono">${queue}</td>
            <td class="${paused ? "warn" : ""}">${pausedAt ? html`paused ${timeTag(pausedAt, data.now)}` : "running"}</td>
            <td>${limits.length > 0 ? limits.join("; ") : html`<span class="muted">none</span>`}</td>
            <td>${view.readOnly ? "" : controlForm(base, view.csrf, queue, paused)}</td>
          </tr>`;
        })}
      </tbody>
    </table>
  </section>`;
}

function controlForm(base: string, csrf: string, queue: string, paused: boolean): Html {
  const action = paused ? "resume" : "pause";
  const confirm = paused
    ? `Resume queue ${queue}? Its due tasks run at once.`
    : `Pause queue ${queue}? No worker claims its tasks until it is resumed; running ones finish.`;
  return html`<form class="inline" method="post" action="${base}/actions/${action}" data-confirm="${confirm}">
    <input type="hidden" name="csrf" value="${csrf}" /><input type="hidden" name="queue" value="${queue}" />
    <button class="small" type="submit">${paused ? "Resume" : "Pause"}</button>
  </form>`;
}

function attentionCards(data: OverviewData, view: OverviewView): Html {
  const base = view.basePath;
  const expired = sum(data.stuck, (g) => g.expired);
  const oldestExpired = Math.max(0, ...data.stuck.map((g) => g.oldestExpiredSeconds));
  const due = sum(data.stuck, (g) => g.due);
  const oldestDue = Math.max(0, ...data.stuck.map((g) => g.oldestDueSeconds));
  // With polling no wake-up is ever sent, so "never woken" would count every due task and blame the cleaner.
  const unpublished = view.wakeups ? sum(data.stuck, (g) => g.unpublished) : 0;
  const dead = data.counts.filter((c) => c.status === "dead");
  const deadTotal = sum(dead, (c) => c.count);
  const deadEstimated = dead.some((c) => c.estimated);
  const deadLastHour = sum(data.throughput.minutes, (m) => m.dead);
  const runningTasks = sum(data.workers, (w) => w.running);
  const leader = data.leader;
  return html` <section class="cards" aria-label="Needs attention">
    <div class="card ${expired > 0 ? "bad" : ""}" data-card="expired">
      <div class="label">Lease expired</div>
      <div class="value"><a href="${tasksHref(base, { status: "expired" })}">${formatCount(expired)}</a></div>
      <div class="detail">${expired > 0 ? `running past their lease; oldest expired ${formatDuration(oldestExpired)} ago` : "no running task past its lease"}</div>
    </div>
    <div class="card ${oldestDue > 300 || unpublished > 0 ? "bad" : oldestDue > 30 ? "warn" : ""}" data-card="due">
      <div class="label">Due, waiting</div>
      <div class="value"><a href="${tasksHref(base, { status: "due" })}">${formatCount(due)}</a></div>
      <div class="detail">
        ${due > 0 ? `oldest waiting ${formatDuration(oldestDue)}` : "nothing waiting"}${unpublished > 0 ? ` · ${formatCount(unpublished)} never woken (cleaner?)` : ""}
      </div>
    </div>
    <div class="card ${deadLastHour > 0 ? "bad" : deadTotal > 0 ? "warn" : ""}" data-card="dead">
      <div class="label">Dead</div>
      <div class="value"><a href="${tasksHref(base, { status: "dead" })}">${formatCount(deadTotal, deadEstimated)}</a></div>
      <div class="detail">${formatCount(deadLastHour)} in the last hour</div>
    </div>
    <div class="card ${data.workers.length === 0 && due > 0 ? "bad" : data.workers.length === 0 ? "warn" : ""}" data-card="workers">
      <div class="label">Workers seen</div>
      <div class="value">${formatCount(data.workers.length)}</div>
      <div class="detail">${formatCount(runningTasks)} task${runningTasks === 1 ? "" : "s"} running now</div>
    </div>
    <div class="card ${leader ? "" : "bad"}" data-card="cleaner">
      <div class="label">Cleaner leader</div>
      <div class="value">${leader ? `pid ${leader.pid}` : "none"}</div>
      <div class="detail">
        ${
          leader
            ? `${leader.clientAddr ?? "local socket"}${leader.since ? ` · connected ${relative(leader.since, data.now)}` : ""}`
            : "no cleaner holds the lock: lost wake-ups, delayed tasks and expired leases are not handled"
        }
      </div>
    </div>
  </section>`;
}

function chartPanel(data: OverviewData): Html {
  const minutes = data.throughput.minutes;
  const succeeded = sum(minutes, (m) => m.succeeded);
  const dead = sum(minutes, (m) => m.dead);
  const series = {
    minute: minutes.map((m) => m.minute),
    succeeded: minutes.map((m) => m.succeeded),
    dead: minutes.map((m) => m.dead),
  };
  return html` <section class="panel">
    <h2>Finished per minute, last hour <span class="muted">· ${formatCount(succeeded)} succeeded · ${formatCount(dead)} dead</span></h2>
    <div id="throughput-chart" role="img" aria-label="Tasks succeeded and dead per minute over the last hour"></div>
    <script type="application/json" id="throughput-data">
      ${jsonScript(series)}
    </script>
  </section>`;
}

function countsPanel(rows: Row[], data: OverviewData, view: OverviewView): Html {
  const base = view.basePath;
  let lastQueue: string | undefined;
  const body = rows.map((row) => {
    const header =
      row.queue !== lastQueue
        ? html`<tr class="queue-row">
            <td colspan="12">queue <span class="mono">${row.queue}</span></td>
          </tr>`
        : "";
    lastQueue = row.queue;
    const stuck = row.stuck;
    const dead = row.counts.get("dead");
    const filter = { queue: row.queue, name: row.name };
    return html`${header}
      <tr data-group="${row.queue}/${row.name}">
        <td><a href="${tasksHref(base, filter)}">${row.name}</a></td>
        ${countCell(row, "pending", base)}
        <td class="num ${stuck && stuck.oldestDueSeconds > 300 ? "alert" : stuck && stuck.oldestDueSeconds > 30 ? "warn" : ""}">
          ${stuck?.due ? html`<a href="${tasksHref(base, { ...filter, status: "due" })}">${formatCount(stuck.due)}</a>` : zero()}
        </td>
        <td class="num">${stuck?.due ? formatDuration(stuck.oldestDueSeconds) : zero("—")}</td>
        ${countCell(row, "running", base)}
        <td class="num ${stuck?.expired ? "alert" : ""}">
          ${
            stuck?.expired
              ? html`<a href="${tasksHref(base, { ...filter, status: "expired" })}" title="oldest expired ${formatDuration(stuck.oldestExpiredSeconds)} ago"
                  >${formatCount(stuck.expired)}</a
                >`
              : zero()
          }
        </td>
        ${countCell(row, "succeeded", base)} ${countCell(row, "dead", base)} ${countCell(row, "cancelled", base)}
        <td class="num">
          ${row.lastHour ? html`<span>${formatCount(row.lastHour.succeeded)}</span> / <span class="${row.lastHour.dead ? "alert" : ""}">${formatCount(row.lastHour.dead)}</span>` : zero("0 / 0")}
        </td>
        <td>${dead && !view.readOnly ? retryDeadForm(base, view.csrf, row.name, dead.count, dead.estimated) : ""}</td>
      </tr>`;
  });
  const estimated = data.counts.some((c) => c.estimated);
  return html` <section class="panel flush">
    <h2>Queues and tasks</h2>
    ${
      rows.length === 0
        ? html`<div class="empty">The task table is empty.</div>`
        : html`<table class="counts">
            <thead>
              <tr>
                <th>Task</th>
                <th class="num">Pending</th>
                <th class="num">Due</th>
                <th class="num">Oldest due</th>
                <th class="num">Running</th>
                <th class="num">Lease expired</th>
                <th class="num">Succeeded</th>
                <th class="num">Dead</th>
                <th class="num">Cancelled</th>
                <th class="num" title="succeeded / dead in the last hour">Last hour ✓ / ✗</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              ${body}
            </tbody>
          </table>`
    }
    ${
      estimated || data.browseIndexAdvised
        ? html`<p class="legend-note padded">
            ${estimated ? "≈ marks counts above the exact limit, estimated from a sample of the table. " : ""}${
              data.browseIndexAdvised ? "The task table has no browse index, so counts and filtered lists scan the whole table (see the dashboard docs)." : ""
            }
          </p>`
        : ""
    }
  </section>`;
}

function countCell(row: Row, status: string, base: string): Html {
  const count = row.counts.get(status);
  const value = count?.count ?? 0;
  return html`<td class="num" data-queue="${row.queue}" data-name="${row.name}" data-status="${status}" data-count="${value}">
    ${value ? html`<a href="${tasksHref(base, { queue: row.queue, name: row.name, status })}">${formatCount(value, count?.estimated)}</a>` : zero()}
  </td>`;
}

function retryDeadForm(base: string, csrf: string, name: string, count: number, estimated: boolean): Html {
  return html`<form
    class="inline"
    method="post"
    action="${base}/actions/retry-dead"
    data-confirm="Retry ${estimated ? "about " : ""}${formatCount(count)} dead ${name} task(s)? They run again from attempt 1."
  >
    <input type="hidden" name="csrf" value="${csrf}" /><input type="hidden" name="name" value="${name}" />
    <input type="hidden" name="return" value="${base}/" />
    <button class="small" type="submit" title="Retry every dead task of this name">Retry dead</button>
  </form>`;
}

function workersPanel(data: OverviewData): Html {
  return html` <section class="panel flush">
    <h2>Workers seen recently</h2>
    ${
      data.workers.length === 0
        ? html`<div class="empty">No worker held or finished a task recently.</div>`
        : html`<table>
            <thead>
              <tr>
                <th>Worker</th>
                <th class="num">Running</th>
                <th class="num">Lease expired</th>
                <th class="num">Finished</th>
                <th>Last seen</th>
              </tr>
            </thead>
            <tbody>
              ${data.workers.map(
                (w) =>
                  html`<tr>
                    <td class="mono">${w.worker}</td>
                    <td class="num">${formatCount(w.running)}</td>
                    <td class="num ${w.expired ? "alert" : ""}">${w.expired ? formatCount(w.expired) : zero()}</td>
                    <td class="num">${formatCount(w.finished)}</td>
                    <td class="${w.idleSeconds > 120 ? "warn" : ""}">${timeTag(w.lastSeen, data.now)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
  </section>`;
}

function schedulesPanel(data: OverviewData): Html | string {
  if (data.schedules.length === 0) return "";
  return html` <section class="panel flush">
    <h2>Recurring schedules</h2>
    <table>
      <thead>
        <tr>
          <th>Schedule</th>
          <th>Cron</th>
          <th>Time zone</th>
          <th>Last slot</th>
          <th>Next slot</th>
        </tr>
      </thead>
      <tbody>
        ${data.schedules.map(
          (s) =>
            html`<tr>
              <td class="mono">${s.schedule}</td>
              <td class="mono">${s.cron}</td>
              <td>${s.timeZone}</td>
              <td>${timeTag(s.lastSlot, data.now)}</td>
              <td>${s.nextSlot ? timeTag(s.nextSlot, data.now) : html`<span class="muted">never</span>`}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}

function failuresPanel(data: OverviewData, view: OverviewView): Html {
  const base = view.basePath;
  return html` <section class="panel flush">
    <h2>Latest dead tasks <a class="heading-link" href="${tasksHref(base, { status: "dead" })}">all →</a></h2>
    ${
      data.recentDead.length === 0
        ? html`<div class="empty">No dead tasks.</div>`
        : html`<table>
            <thead>
              <tr>
                <th>Task</th>
                <th>Died</th>
                <th>Last error</th>
              </tr>
            </thead>
            <tbody>
              ${data.recentDead.map(
                (task) =>
                  html`<tr>
                    <td><a href="${base}/tasks/${task.id}" title="${task.id}">${task.name}</a> <span class="mono muted">${shortId(task.id)}</span></td>
                    <td>${timeTag(task.finishedAt, data.now)}</td>
                    <td class="ellipsis" title="${task.errorLine ?? ""}">${task.errorLine ?? html`<span class="muted">—</span>`}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
  </section>`;
}

function groupRows(data: OverviewData): Row[] {
  const rows = new Map<string, Row>();
  const row = (queue: string, name: string): Row => {
    const key = `${queue}\u0000${name}`;
    let found = rows.get(key);
    if (!found) rows.set(key, (found = { queue, name, counts: new Map(), stuck: undefined, lastHour: undefined }));
    return found;
  };
  for (const count of data.counts) row(count.queue, count.name).counts.set(count.status, count);
  for (const stuck of data.stuck) row(stuck.queue, stuck.name).stuck = stuck;
  for (const entry of data.throughput.byName) {
    const found = rows.get(`${entry.queue}\u0000${entry.name}`);
    if (found) found.lastHour = entry;
  }
  return [...rows.values()].sort((a, b) => a.queue.localeCompare(b.queue) || a.name.localeCompare(b.name));
}

function zero(text = "0"): Html {
  return html`<span class="zero">${text}</span>`;
}

function sum<T>(items: readonly T[], value: (item: T) => number): number {
  let total = 0;
  for (const item of items) total += value(item);
  return total;
}
