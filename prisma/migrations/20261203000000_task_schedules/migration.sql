-- prisma-task-queue: recurring tasks. A row per declared schedule, whose `last_slot` is the latest slot fired or passed
-- over (slots at or before it never fire), and a row per fired slot, written in the transaction that inserts its task:
-- its primary key (schedule, slot) refuses a second firing. No foreign key to the task table (finished tasks are
-- pruned; a slot's row stays until the cleaner prunes it behind last_slot). Two new tables and nothing else: the task
-- table is not touched, so this runs with tasks in flight.
CREATE TABLE "tasks_schedules" (
    "schedule" TEXT NOT NULL,
    "task_name" TEXT NOT NULL,
    "cron" TEXT NOT NULL,
    "time_zone" TEXT NOT NULL,
    "last_slot" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "tasks_schedules_pkey" PRIMARY KEY ("schedule")
);

CREATE TABLE "tasks_schedule_slots" (
    "schedule" TEXT NOT NULL,
    "slot" TIMESTAMPTZ(3) NOT NULL,
    "task_id" UUID NOT NULL,
    "fired_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tasks_schedule_slots_pkey" PRIMARY KEY ("schedule", "slot")
);

-- Cleaner: fired slots to prune, oldest first.
CREATE INDEX "tasks_schedule_slots_fired_at_idx" ON "tasks_schedule_slots"("fired_at");
