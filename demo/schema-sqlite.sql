-- Demo tables on SQLite: one row per handler run, so the verdict can prove "committed → ran once" from the database.
CREATE TABLE "demo_runs" (
    "task_id" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "outcome" TEXT NOT NULL,
    "at" DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'))
);
CREATE INDEX "demo_runs_task_idx" ON "demo_runs"("task_id");
