-- prisma-task-queue: who finished a task, and its earlier errors. `finished_by` is the worker id that last completed or
-- failed the task (lease_owner is cleared on every way out of running, so it cannot say who ran a finished task);
-- `errors` holds the last 10 failed attempts as a JSON array of {attempt, error, at}. Both are nullable: adding them
-- rewrites no row and takes no long lock, so the migration runs with tasks in flight.
ALTER TABLE "tasks" ADD COLUMN "errors" JSONB,
ADD COLUMN "finished_by" TEXT;
