-- prisma-task-queue (MySQL 8.0.4+ / MariaDB 10.6+): who finished a task, and its earlier errors. `finished_by` is the
-- worker id that last completed or failed the task (lease_owner is cleared on every way out of running); `errors`
-- holds the last 10 failed attempts as a JSON array of {attempt, error, at}. Both are nullable trailing columns: MariaDB
-- 10.11 accepts this ALTER with ALGORITHM=INSTANT (checked), and MySQL 8.0.12+ adds trailing columns instantly too.
ALTER TABLE `tasks` ADD COLUMN `errors` JSON NULL,
    ADD COLUMN `finished_by` VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL;
