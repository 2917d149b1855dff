-- prisma-task-queue: a workflow's children. A task started by a workflow's ctx.step.startChildren() names that
-- workflow in `parent_id`: its end wakes the parent waiting for it, and cancelling the parent cancels it. A nullable
-- column (instant on MySQL 8 and MariaDB 10.3+) and its index (built online, writes go on): this runs with tasks in
-- flight.
ALTER TABLE `tasks` ADD COLUMN `parent_id` CHAR(36) CHARACTER SET ascii COLLATE ascii_general_ci NULL;

CREATE INDEX `tasks_parent_id_idx` ON `tasks`(`parent_id`);
