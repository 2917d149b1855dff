-- prisma-task-queue (MySQL 8.0.4+ / MariaDB 10.6+): queue controls. A row per queue that was paused or declared limits
-- (`paused_at` set while paused; the limits are what the workers declared, for status and the dashboard), locked by the
-- claims of a limited queue so that their counts are exact; a log of the starts of rate-limited queues (one row per
-- claim and instant, pruned past the window); and the concurrency key of a task, written at enqueue. The running tasks
-- themselves are the concurrency slots: ending a run, in any way, frees its slot, once. Times are DATETIME in UTC.
-- Queue names and keys use binary collation, as in the task table. An added nullable column and index: InnoDB builds
-- them in place, with tasks in flight.
ALTER TABLE `tasks` ADD COLUMN `concurrency_key` VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL;

-- Claims of a limited queue: running tasks per queue, per task name, per concurrency key.
CREATE INDEX `tasks_status_queue_name_concurrency_key_idx` ON `tasks`(`status`, `queue`, `name`, `concurrency_key`);

CREATE TABLE `tasks_queues` (
    `queue` VARCHAR(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    `paused_at` DATETIME(3) NULL,
    `concurrency` INTEGER NULL,
    `rate_starts` INTEGER NULL,
    `rate_per_ms` INTEGER NULL,
    `updated_at` DATETIME(3) NOT NULL,

    PRIMARY KEY (`queue`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

CREATE TABLE `tasks_queue_starts` (
    `queue` VARCHAR(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    `started_at` DATETIME(6) NOT NULL,
    `starts` INTEGER NOT NULL,

    PRIMARY KEY (`queue`, `started_at`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
