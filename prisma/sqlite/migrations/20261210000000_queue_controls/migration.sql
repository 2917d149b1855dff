-- prisma-task-queue on SQLite: queue controls. A row per queue that was paused or declared limits (`paused_at` set
-- while paused; the limits are what the workers declared, for status and the dashboard), a log of the starts of
-- rate-limited queues (one row per claim and instant, in epoch milliseconds, pruned past the window), and the concurrency key of a task,
-- written at enqueue. The running tasks themselves are the concurrency slots: ending a run, in any way, frees its slot,
-- once. Times are ISO 8601 text in UTC, as in the task table. Adding a nullable column and an index over running rows
-- only: this runs with tasks in flight.
ALTER TABLE "tasks" ADD COLUMN "concurrency_key" TEXT;

-- Claims of a limited queue: running tasks per queue, per task name, per concurrency key.
CREATE INDEX "tasks_running_idx" ON "tasks"("queue", "name", "concurrency_key") WHERE "status" = 'running';

CREATE TABLE "tasks_queues" (
    "queue" TEXT NOT NULL PRIMARY KEY,
    "paused_at" DATETIME,
    "concurrency" INTEGER,
    "rate_starts" INTEGER,
    "rate_per_ms" INTEGER,
    "updated_at" DATETIME NOT NULL
);

CREATE TABLE "tasks_queue_starts" (
    "queue" TEXT NOT NULL,
    "started_at" INTEGER NOT NULL,
    "starts" INTEGER NOT NULL,

    PRIMARY KEY ("queue", "started_at")
);
