-- prisma-task-queue: durable workflows. A handler's steps, one row per step of a task in the order the handler asked
-- for them (`seq`): a step's result (JSON text) is recorded once, and a later run of the task replays it instead of
-- running the step again; a sleep keeps its wake-up time in `until`, a wait for an event its deadline, with state
-- 'waiting' until the event (or the deadline) ends it. Events sent to a task wait in `tasks_events` until one of its
-- waits consumes them (`consumed_seq`: that wait's step). `waiting_for` on the task names the event a suspended
-- workflow waits for, so the transaction that sends it makes the task due at its commit. A nullable column (instant on
-- MySQL 8 and MariaDB 10.3+) and new tables only: this runs with tasks in flight.
ALTER TABLE `tasks` ADD COLUMN `waiting_for` VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL;

CREATE TABLE `tasks_steps` (
    `task_id` CHAR(36) CHARACTER SET ascii COLLATE ascii_general_ci NOT NULL,
    `seq` INTEGER NOT NULL,
    `name` VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    `kind` VARCHAR(20) NOT NULL,
    `attempt` INTEGER NOT NULL,
    `state` VARCHAR(20) NOT NULL DEFAULT 'done',
    `result` LONGTEXT NULL,
    `until` DATETIME(6) NULL,
    `created_at` DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
    `finished_at` DATETIME(6) NULL,

    PRIMARY KEY (`task_id`, `seq`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

CREATE TABLE `tasks_events` (
    `id` BIGINT NOT NULL AUTO_INCREMENT,
    `task_id` CHAR(36) CHARACTER SET ascii COLLATE ascii_general_ci NOT NULL,
    `name` VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    `payload` LONGTEXT NOT NULL,
    `sent_at` DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
    `consumed_seq` INTEGER NULL,

    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

-- A wait reads its task's oldest event of a name; the prune deletes a task's events.
CREATE INDEX `tasks_events_task_id_name_id_idx` ON `tasks_events`(`task_id`, `name`, `id`);
