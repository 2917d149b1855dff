-- prisma-task-queue on SQLite: recurring tasks. A row per declared schedule, whose `last_slot` is the latest slot fired
-- or passed over (slots at or before it never fire), and a row per fired slot, written in the transaction that inserts
-- its task: its primary key (schedule, slot) refuses a second firing. Times are ISO 8601 text in UTC, as in the task
-- table. No foreign key to the task table (finished tasks are pruned; a slot's row stays until the cleaner prunes it
-- behind last_slot). Two new tables and nothing else: the task table is not touched.
CREATE TABLE "tasks_schedules" (
    "schedule" TEXT NOT NULL PRIMARY KEY,
    "task_name" TEXT NOT NULL,
    "cron" TEXT NOT NULL,
    "time_zone" TEXT NOT NULL,
    "last_slot" DATETIME NOT NULL,
    "updated_at" DATETIME NOT NULL
);

CREATE TABLE "tasks_schedule_slots" (
    "schedule" TEXT NOT NULL,
    "slot" DATETIME NOT NULL,
    "task_id" TEXT NOT NULL,
    "fired_at" DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')),

    PRIMARY KEY ("schedule", "slot")
);

-- Cleaner: fired slots to prune, oldest first.
CREATE INDEX "tasks_schedule_slots_fired_at_idx" ON "tasks_schedule_slots"("fired_at");
