-- prisma-task-queue: queue controls. A row per queue that was paused or declared limits (`paused_at` set while paused;
-- the limits are what the workers declared, for status and the dashboard: the workers' own declarations are enforced),
-- locked by the claims of a limited queue so that their counts are exact; a log of the starts of rate-limited queues
-- (one row per claim and instant, pruned past the window); and the concurrency key of a task, written at enqueue. The
-- running tasks themselves are the concurrency slots: ending a run, in any way, frees its slot, once. Adding a nullable
-- column and a partial index over running rows only: this runs with tasks in flight.
ALTER TABLE "tasks" ADD COLUMN "concurrency_key" TEXT;

-- Claims of a limited queue: running tasks per queue, per task name, per concurrency key.
CREATE INDEX "tasks_running_idx" ON "tasks"("queue", "name", "concurrency_key") WHERE "status" = 'running';

CREATE TABLE "tasks_queues" (
    "queue" TEXT NOT NULL,
    "paused_at" TIMESTAMPTZ(3),
    "concurrency" INTEGER,
    "rate_starts" INTEGER,
    "rate_per_ms" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "tasks_queues_pkey" PRIMARY KEY ("queue")
);

CREATE TABLE "tasks_queue_starts" (
    "queue" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(6) NOT NULL,
    "starts" INTEGER NOT NULL,

    CONSTRAINT "tasks_queue_starts_pkey" PRIMARY KEY ("queue", "started_at")
);
