-- prisma-task-queue: who finished a task, and its earlier errors. `finished_by` is the worker id that last completed or
-- failed the task (lease_owner is cleared on every way out of running, so it cannot say who ran a finished task);
-- `errors` holds the last 10 failed attempts as a JSON array of {attempt, error, at}. Both are nullable without a
-- default: adding them rewrites no row (a catalog change), so it runs with tasks in flight. It still needs the table's
-- ACCESS EXCLUSIVE lock for that moment, and queues behind any open transaction on the table (set lock_timeout).
ALTER TABLE "tasks" ADD COLUMN "errors" JSONB,
ADD COLUMN "finished_by" TEXT;
