-- Business table the MySQL tests write beside their tasks (the Report model of test/prisma-mysql/base.prisma).
CREATE TABLE `reports` (
    `id` CHAR(36) NOT NULL,
    `status` VARCHAR(191) NOT NULL DEFAULT 'pending',
    `result` VARCHAR(191) NULL,
    `created_at` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
