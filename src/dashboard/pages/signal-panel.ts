// The overview's scaling signal: per queue, tasks arriving and completing a second (a bar chart drawn by the
// dashboard's script with uPlot), the backlog, the mean processing time and the workers recommended.

import type { SignalReport } from "../../scaler/signal-report.js";
import { html, jsonScript, type Html } from "./html.js";

export function signalPanel(report: SignalReport): Html {
  const title = html`<h2>
    Scaling signal
    <span class="muted">· last ${report.windowSeconds} s · headroom ${report.headroom} · backlog drained within ${report.drainSeconds} s</span>
  </h2>`;
  if (report.unavailable)
    return html`<section class="panel" id="scaling-signal">
      ${title}
      <p class="muted">Unavailable: ${report.unavailable}</p>
    </section>`;
  if (report.queues.length === 0)
    return html`<section class="panel" id="scaling-signal">
      ${title}
      <p class="muted">No queue enqueued, completed or waits.</p>
    </section>`;
  const series = {
    queues: report.queues.map((row) => row.queue),
    arrival: report.queues.map((row) => row.arrivalRate),
    completion: report.queues.map((row) => row.completionRate),
  };
  return html`<section class="panel" id="scaling-signal">
    ${title}
    <div id="signal-chart" role="img" aria-label="Tasks arriving and completing per second, per queue"></div>
    <script type="application/json" id="signal-data">
      ${jsonScript(series)}
    </script>
    <table>
      <thead>
        <tr>
          <th>Queue</th>
          <th class="num">Arrival / s</th>
          <th class="num">Completion / s</th>
          <th class="num">Backlog</th>
          <th class="num">Mean run</th>
          <th class="num">Concurrency</th>
          <th class="num">Workers</th>
        </tr>
      </thead>
      <tbody>
        ${report.queues.map(
          (row) =>
            html`<tr data-signal-queue="${row.queue}">
              <td>${row.queue}</td>
              <td class="num">${rate(row.arrivalRate)}</td>
              <td class="num">${rate(row.completionRate)}</td>
              <td class="num">${row.backlog}</td>
              <td class="num">${row.meanProcessingSeconds === null ? "?" : `${(row.meanProcessingSeconds * 1000).toFixed(0)} ms`}</td>
              <td class="num">${row.concurrency}</td>
              <td class="num recommended">${row.recommendedWorkers === null ? "?" : row.recommendedWorkers}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    ${report.queues.filter((row) => row.unknown).map((row) => html`<p class="muted">${row.queue}: ? because ${row.unknown}.</p>`)}
  </section>`;
}

function rate(value: number | null): string {
  return value === null ? "?" : value.toFixed(2);
}
