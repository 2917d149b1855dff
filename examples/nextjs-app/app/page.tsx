// The page: explains the workflow, renders the newest reports on the server, and hands over to ReportDesk,
// which requests reports through the server actions and polls their status.

import { prisma } from "@/src/db";
import { listReports } from "@/src/report-views";
import { flakyFailures } from "@/src/settings";
import { ReportDesk } from "./report-desk";

export const dynamic = "force-dynamic";

export default async function Page() {
  const reports = await listReports(prisma());
  const failures = flakyFailures();
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
      <ReportDesk initialReports={reports} />
      <footer>
        <p>
          Each request writes the report row and enqueues its <code>generate-report</code> task in one <code>prisma.$transaction</code>. The wake-up goes to RabbitMQ only
          after the commit; the task row in PostgreSQL is the truth, so a lost message delays a report but never loses it. A request that fails after the enqueue rolls
          both rows back, and nothing runs.
        </p>
      </footer>
    </main>
  );
}
