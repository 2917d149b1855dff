-- prisma-task-queue: durable workflows. A handler's steps, one row per step of a task in the order the handler asked
-- for them (`seq`): a step's result (JSON text) is recorded once, and a later run of the task replays it instead of
-- running the step again; a sleep keeps its wake-up time in `until`, a wait for an event its deadline, with state
-- 'waiting' until the event (or the deadline) ends it. Events sent to a task wait in `tasks_events` until one of its
-- waits consumes them (`consumed_seq`: that wait's step). `waiting_for` on the task names the event a suspended
-- workflow waits for, so the transaction that sends it makes the task due at its commit. Nullable and new tables only:
-- this runs with tasks in flight.
ALTER TABLE "tasks" ADD COLUMN "waiting_for" TEXT;

CREATE TABLE "tasks_steps" (
    "task_id" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'done',
    "result" TEXT,
    "until" TIMESTAMPTZ(6),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(6),

    CONSTRAINT "tasks_steps_pkey" PRIMARY KEY ("task_id", "seq")
);

CREATE TABLE "tasks_events" (
    "id" BIGSERIAL NOT NULL,
    "task_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "sent_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "consumed_seq" INTEGER,

    CONSTRAINT "tasks_events_pkey" PRIMARY KEY ("id")
);

-- A wait reads its task's oldest event of a name; the prune deletes a task's events.
CREATE INDEX "tasks_events_task_id_name_id_idx" ON "tasks_events"("task_id", "name", "id");
