// One line of the reports table: the status badge, the attempts so far, and what the worker last saw
// (the result, the error that caused a retry, or the error that made the task give up).

import type { ReportView } from "@/src/report-views";
import { shortId } from "@/src/short-id";

export function ReportRow({ report }: { report: ReportView }) {
  return (
    <tr data-testid="report-row" data-report-id={report.id} data-status={report.status} data-attempts={report.attempts ?? ""}>
      <td>
        <code>{shortId(report.id)}</code>
      </td>
      <td>{report.requestedAt.slice(11, 19)}</td>
      <td>
        <span className={`badge ${report.status}`}>{report.status}</span>
      </td>
      <td>{report.attempts === null ? "–" : `${report.attempts} of ${report.maxAttempts}`}</td>
      <td className="details">
        <Details report={report} />
      </td>
    </tr>
  );
}

function Details({ report }: { report: ReportView }) {
  switch (report.status) {
    case "done": {
      const lines = report.result?.lines ?? [];
      const orders = lines.reduce((sum, line) => sum + line.orders, 0);
      const revenue = lines.reduce((sum, line) => sum + line.revenue, 0);
      const seconds = report.completedAt ? (Date.parse(report.completedAt) - Date.parse(report.requestedAt)) / 1000 : null;
      return (
        <>
          {lines.length} regions, {orders} orders, revenue {revenue.toLocaleString("en-US")}
          {seconds !== null && <> · ready {seconds.toFixed(1)} s after the request</>}
          {report.lastError && <div className="muted">retried past: {report.lastError}</div>}
        </>
      );
    }
    case "retrying":
      return (
        <>
          <div className="warn-text">{report.lastError}</div>
          {report.nextRunAt && <div className="muted">next try at {report.nextRunAt.slice(11, 23)}</div>}
        </>
      );
    case "running":
      return <>a worker is calling the report service…</>;
    case "failed":
      return <div className="bad-text">gave up: {report.lastError}</div>;
    case "cancelled":
      return <>cancelled by an operator</>;
    default:
      return <>waiting for a worker</>;
  }
}
