"use client";
// The interactive part of the page: the two request buttons, what the last request did, and the reports table,
// refreshed every 500 ms from GET /api/reports so each report moves from pending to done without a reload.

import { useEffect, useRef, useState, useTransition } from "react";
import type { DigestView, ReportView } from "@/src/report-views";
import { shortId } from "@/src/short-id";
import { requestReport, requestReportThenFail, type ActionOutcome } from "./actions";
import { ReportRow } from "./report-row";

const POLL_MS = 500;

export function ReportDesk({ initialReports, initialDigest }: { initialReports: ReportView[]; initialDigest: DigestView | null }) {
  const [reports, setReports] = useState(initialReports);
  const [digest, setDigest] = useState(initialDigest);
  const [outcome, setOutcome] = useState<ActionOutcome | { kind: "error"; message: string } | null>(null);
  const [unreachable, setUnreachable] = useState(false);
  const [busy, startTransition] = useTransition();

  // Polls GET /api/reports: every POLL_MS, and at once after a request (refreshNow), one fetch at a time.
  const refreshNow = useRef<() => void>(() => {});
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let inFlight = false;
    const poll = async () => {
      clearTimeout(timer);
      if (inFlight || stopped) return;
      inFlight = true;
      try {
        const response = await fetch("/api/reports", { cache: "no-store" });
        if (!response.ok) throw new Error(`status ${response.status}`);
        const body = (await response.json()) as { reports: ReportView[]; digest: DigestView | null };
        if (!stopped) {
          setReports(body.reports);
          setDigest(body.digest);
        }
        setUnreachable(false);
      } catch {
        setUnreachable(true);
      } finally {
        inFlight = false;
      }
      if (!stopped) timer = setTimeout(poll, POLL_MS);
    };
    refreshNow.current = () => void poll();
    timer = setTimeout(poll, POLL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, []);

  const run = (action: () => Promise<ActionOutcome>) =>
    startTransition(async () => {
      try {
        setOutcome(await action());
        refreshNow.current();
      } catch (error) {
        setOutcome({ kind: "error", message: (error as Error).message });
      }
    });

  return (
    <section>
      <div className="actions">
        <button type="button" data-testid="request-report" disabled={busy} onClick={() => run(() => requestReport("now"))}>
          Request a report
        </button>
        <button type="button" className="secondary" data-testid="request-later" disabled={busy} onClick={() => run(() => requestReport("later"))}>
          Request one for in 5 s
        </button>
        <button type="button" className="secondary" data-testid="request-slow" disabled={busy} onClick={() => run(() => requestReport("slow"))}>
          Request a slow one (3 s)
        </button>
        <button type="button" className="secondary" data-testid="request-then-fail" disabled={busy} onClick={() => run(requestReportThenFail)}>
          Request, then fail after the enqueue
        </button>
      </div>
      <Outcome outcome={outcome} />
      {unreachable && <p className="notice warn">The app is not answering; the list will catch up when it does.</p>}
      <table>
        <thead>
          <tr>
            <th>Report</th>
            <th>Requested (UTC)</th>
            <th>Status</th>
            <th>Attempts</th>
            <th>Details</th>
          </tr>
        </thead>
        <tbody>
          {reports.length === 0 ? (
            <tr>
              <td colSpan={5} className="empty">
                No reports yet.
              </td>
            </tr>
          ) : (
            reports.map((report) => <ReportRow key={report.id} report={report} />)
          )}
        </tbody>
      </table>
      <Digest digest={digest} />
    </section>
  );
}

function Digest({ digest }: { digest: DigestView | null }) {
  if (!digest) {
    return (
      <p className="muted" data-testid="digest">
        The report digest (a recurring task, every 10 s) has not run yet.
      </p>
    );
  }
  return (
    <p className="muted" data-testid="digest" data-slot={digest.slot}>
      Report digest, slot {digest.slot.slice(11, 19)} UTC: {digest.done} report{digest.done === 1 ? "" : "s"} done.
    </p>
  );
}

function Outcome({ outcome }: { outcome: ActionOutcome | { kind: "error"; message: string } | null }) {
  if (!outcome) return null;
  if (outcome.kind === "error") {
    return (
      <p className="notice bad" role="status" data-testid="outcome" data-kind="error">
        The request failed: {outcome.message}
      </p>
    );
  }
  if (outcome.kind === "requested") {
    return (
      <p className="notice" role="status" data-testid="outcome" data-kind="requested" data-report-id={outcome.reportId}>
        Report <code>{shortId(outcome.reportId)}</code> requested: the report row and its task <code>{shortId(outcome.taskId)}</code> committed together; it runs once the
        commit is seen.
      </p>
    );
  }
  const clean = !outcome.reportRowExists && !outcome.taskRowExists;
  return (
    <p className={`notice ${clean ? "" : "bad"}`} role="status" data-testid="outcome" data-kind="rolled-back" data-clean={String(clean)} data-task-id={outcome.taskId}>
      Rolled back: report <code>{shortId(outcome.reportId)}</code> and task <code>{shortId(outcome.taskId)}</code> were written inside the transaction, then it threw (
      {outcome.error}).{" "}
      {clean
        ? "Looked up after the rollback: no report row and no task row, so nothing will ever run."
        : `Looked up after the rollback: the ${outcome.reportRowExists ? "report" : "task"} row is still there. That is a bug; please report it.`}
    </p>
  );
}
