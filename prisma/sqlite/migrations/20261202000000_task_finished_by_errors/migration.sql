-- prisma-task-queue on SQLite: who finished a task, and its earlier errors. `finished_by` is the worker id that last
-- completed or failed the task (lease_owner is cleared on every way out of running); `errors` holds the last 10 failed
-- attempts as JSON text, an array of {attempt, error, at}. Both are nullable: adding them rewrites no row.
ALTER TABLE "tasks" ADD COLUMN "errors" JSONB;
ALTER TABLE "tasks" ADD COLUMN "finished_by" TEXT;
