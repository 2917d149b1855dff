-- prisma-task-queue: a workflow's children. A task started by a workflow's ctx.step.startChildren() names that
-- workflow in `parent_id`: its end wakes the parent waiting for it, and cancelling the parent cancels it. A nullable
-- column and a partial index of the children alone (a task that is nobody's child costs it nothing): this runs with
-- tasks in flight.
ALTER TABLE "tasks" ADD COLUMN "parent_id" TEXT;

CREATE INDEX "tasks_parent_id_idx" ON "tasks"("parent_id") WHERE "parent_id" IS NOT NULL;
