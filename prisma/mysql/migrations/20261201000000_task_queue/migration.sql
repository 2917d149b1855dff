-- prisma-task-queue (MySQL 8.0.4+ / MariaDB 10.6+): creates the task table and the indexes that serve the claim and
-- the cleaner. Times are DATETIME(6) in UTC: every statement of the queue writes them with UTC_TIMESTAMP(6), so the
-- session time zone never matters (the CURRENT_TIMESTAMP defaults are what Prisma declares; the queue never uses them).
CREATE TABLE `tasks` (
    `id` CHAR(36) CHARACTER SET ascii COLLATE ascii_general_ci NOT NULL,
    `name` VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    `queue` VARCHAR(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL DEFAULT 'default',
    `payload` JSON NOT NULL,
    `status` VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL DEFAULT 'pending',
    `priority` INTEGER NOT NULL DEFAULT 0,
    `run_at` DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
    `attempts` INTEGER NOT NULL DEFAULT 0,
    `max_attempts` INTEGER NOT NULL DEFAULT 5,
    `lease_owner` VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
    `lease_expires_at` DATETIME(6) NULL,
    `last_error` MEDIUMTEXT NULL,
    `result` JSON NULL,
    `key` VARCHAR(512) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
    `created_at` DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
    `updated_at` DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
    `finished_at` DATETIME(6) NULL,
    `published_at` DATETIME(6) NULL,

    -- Dedupe: a second enqueue with the same key finds the first row. MySQL has no partial index; a UNIQUE index admits
    -- any number of NULLs, so rows without a key never conflict. Binary collation: keys compare like PostgreSQL text
    -- (case and accents matter), except that trailing spaces are ignored (PAD SPACE).
    UNIQUE INDEX `tasks_key_key`(`key`),
    -- Claim and polling: due pending tasks of a queue, highest priority first, oldest first.
    INDEX `tasks_status_queue_priority_run_at_idx`(`status`, `queue`, `priority` DESC, `run_at`),
    -- Cleaner: due pending tasks whose wake-up was never sent (published_at NULL), and stale wake-ups.
    INDEX `tasks_status_published_at_run_at_idx`(`status`, `published_at`, `run_at`),
    -- Cleaner: running tasks whose lease expired.
    INDEX `tasks_status_lease_expires_at_idx`(`status`, `lease_expires_at`),
    -- Cleaner and dashboard: finished tasks (only they have a finished_at) to prune and to chart, oldest first.
    INDEX `tasks_finished_at_idx`(`finished_at`),
    PRIMARY KEY (`id`),
    CONSTRAINT `tasks_status_check` CHECK (`status` IN ('pending', 'running', 'succeeded', 'dead', 'cancelled'))
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
