-- prisma-task-queue: creates the task table and the indexes that serve the claim and the cleaner.
CREATE TABLE "tasks" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "queue" TEXT NOT NULL DEFAULT 'default',
    "payload" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "priority" INTEGER NOT NULL DEFAULT 0,
    "run_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "max_attempts" INTEGER NOT NULL DEFAULT 5,
    "lease_owner" TEXT,
    "lease_expires_at" TIMESTAMPTZ(6),
    "last_error" TEXT,
    "result" JSONB,
    "key" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(6),
    "published_at" TIMESTAMPTZ(6),

    CONSTRAINT "tasks_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "tasks_status_check" CHECK ("status" IN ('pending', 'running', 'succeeded', 'dead', 'cancelled'))
);

-- Dedupe: a second enqueue with the same key finds the first row. Partial, so the many rows without a key are not in
-- it: every claim and completion writes a new row version, and would otherwise add an index entry here each time.
CREATE UNIQUE INDEX "tasks_key_key" ON "tasks"("key") WHERE "key" IS NOT NULL;

-- Claim and polling: due pending tasks of a queue, highest priority first, oldest first.
CREATE INDEX "tasks_pending_idx" ON "tasks"("queue", "priority" DESC, "run_at") WHERE "status" = 'pending';

-- Cleaner: due pending tasks whose wake-up was never sent (delayed, retried, or lost after commit).
CREATE INDEX "tasks_unpublished_idx" ON "tasks"("run_at") WHERE "status" = 'pending' AND "published_at" IS NULL;

-- Cleaner: running tasks whose lease expired.
CREATE INDEX "tasks_lease_idx" ON "tasks"("lease_expires_at") WHERE "status" = 'running';

-- Cleaner: finished tasks to prune, oldest first.
CREATE INDEX "tasks_finished_idx" ON "tasks"("finished_at") WHERE "status" IN ('succeeded', 'dead', 'cancelled');
