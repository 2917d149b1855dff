// The page: explains the workflow, renders the newest reports on the server, and hands over to ReportDesk,
// which requests reports through the server actions and polls their status.

import { prisma } from "@/src/db";
import { latestDigest, listReports } from "@/src/report-views";
import { flakyFailures, taskMode, type TaskMode } from "@/src/settings";
import { ReportDesk } from "./report-desk";

export const dynamic = "force-dynamic";

export default async function Page() {
  const [reports, digest] = await Promise.all([listReports(prisma()), latestDigest(prisma())]);
  const failures = flakyFailures();
  const mode = taskMode();
  return (
    <main>
      <header>
        <h1>Reports</h1>
        <p>
          Ask for a report and it shows <b>pending</b> at once. A worker generates it in the background through a third-party service that is down for the first{" "}
          {failures} call{failures === 1 ? "" : "s"} of every report; the task retries with backoff until the service answers, then stores the report in the same
          transaction that completes the task.
        </p>
      </header>
      <p className="notice" data-testid="task-mode" data-mode={mode}>
        {MODES[mode]}
      </p>
      <ReportDesk initialReports={reports} initialDigest={digest} />
      <footer>
        <p>
          Each request writes the report row and enqueues its <code>generate-report</code> task in one <code>prisma.$transaction</code>. Whatever runs it hears of it only
          after the commit; the task row in PostgreSQL is the truth, so a lost wake-up delays a report but never loses it. A request that fails after the enqueue rolls
          both rows back, and nothing runs.
        </p>
      </footer>
    </main>
  );
}

/** What runs the tasks, as the page tells it (TASK_MODE). */
const MODES: Record<TaskMode, string> = {
  runner: "Tasks run in `npx task-runner start`, a process beside this app, woken through RabbitMQ.",
  serverless:
    "Serverless mode: no worker process. A request's tasks run in the same invocation after its response (Next.js after()); retries, delayed tasks, runs cut short and the digest's slots run when a scheduler calls /api/tasks/cron.",
  "self-hosted": "Self-hosted mode: the worker and the cleaner run inside this next start process, started by instrumentation.ts.",
};
