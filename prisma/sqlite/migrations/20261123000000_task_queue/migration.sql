-- prisma-task-queue on SQLite: the task table, the indexes that serve the claim and the cleaner, and the cleaners'
-- leader lease. Column types are those Prisma writes for the model (DATETIME, JSONB); the values are text: times in
-- ISO 8601 UTC as @prisma/adapter-better-sqlite3 writes them by default ("2026-11-23T09:30:00.000+00:00"), so that
-- comparing them as text compares instants, and JSON as text.
CREATE TABLE "tasks" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "queue" TEXT NOT NULL DEFAULT 'default',
    "payload" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending' CHECK ("status" IN ('pending', 'running', 'succeeded', 'dead', 'cancelled')),
    "priority" INTEGER NOT NULL DEFAULT 0,
    "run_at" DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "max_attempts" INTEGER NOT NULL DEFAULT 5,
    "lease_owner" TEXT,
    "lease_expires_at" DATETIME,
    "last_error" TEXT,
    "result" JSONB,
    "key" TEXT,
    "created_at" DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')),
    "updated_at" DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')),
    "finished_at" DATETIME,
    "published_at" DATETIME
);

-- Dedupe: a second enqueue with the same key finds the first row (rows without a key are not in it: NULLs differ).
CREATE UNIQUE INDEX "tasks_key_key" ON "tasks"("key");

-- Claim and polling: due pending tasks of a queue, highest priority first, oldest first.
CREATE INDEX "tasks_pending_idx" ON "tasks"("queue", "priority" DESC, "run_at") WHERE "status" = 'pending';

-- Cleaner: due pending tasks whose wake-up was never sent (delayed, retried, or lost after commit).
CREATE INDEX "tasks_unpublished_idx" ON "tasks"("run_at") WHERE "status" = 'pending' AND "published_at" IS NULL;

-- Cleaner: running tasks whose lease expired.
CREATE INDEX "tasks_lease_idx" ON "tasks"("lease_expires_at") WHERE "status" = 'running';

-- Cleaner: finished tasks to prune, oldest first.
CREATE INDEX "tasks_finished_idx" ON "tasks"("finished_at") WHERE "status" IN ('succeeded', 'dead', 'cancelled');

-- The cleaners' leader lease: one row per lock, held by the cleaner whose lease has not expired.
CREATE TABLE "tasks_leaders" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "holder" TEXT NOT NULL,
    "elected_at" DATETIME NOT NULL,
    "expires_at" DATETIME NOT NULL
);
