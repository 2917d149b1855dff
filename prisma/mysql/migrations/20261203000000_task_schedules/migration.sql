-- prisma-task-queue (MySQL 8.0.4+ / MariaDB 10.6+): recurring tasks. A row per declared schedule, whose `last_slot` is
-- the latest slot fired or passed over (slots at or before it never fire), and a row per fired slot, written in the
-- transaction that inserts its task: its primary key (schedule, slot) refuses a second firing. Times are DATETIME(3) in
-- UTC, written with UTC_TIMESTAMP(3). Schedule ids are up to 400 characters, binary collation (they compare like
-- PostgreSQL text): 1,600 bytes in utf8mb4, so the key (schedule, slot) stays under InnoDB's 3,072-byte limit. No
-- foreign key to the task table (finished tasks are pruned; a slot's row stays until the cleaner prunes it behind
-- last_slot). Two new tables and nothing else: the task table is not touched.
CREATE TABLE `tasks_schedules` (
    `schedule` VARCHAR(400) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    `task_name` VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    `cron` VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    `time_zone` VARCHAR(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    `last_slot` DATETIME(3) NOT NULL,
    `updated_at` DATETIME(3) NOT NULL,

    PRIMARY KEY (`schedule`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

CREATE TABLE `tasks_schedule_slots` (
    `schedule` VARCHAR(400) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    `slot` DATETIME(3) NOT NULL,
    `task_id` CHAR(36) CHARACTER SET ascii COLLATE ascii_general_ci NOT NULL,
    `fired_at` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),

    -- Cleaner: fired slots to prune, oldest first.
    INDEX `tasks_schedule_slots_fired_at_idx`(`fired_at`),
    PRIMARY KEY (`schedule`, `slot`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
