-- Business tables the SQLite tests write beside their tasks (the Report model of test/prisma-sqlite/base.prisma).
CREATE TABLE "reports" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "result" TEXT,
    "created_at" DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'))
);
