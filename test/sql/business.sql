-- Business tables the tests write beside their tasks (the Report model of test/prisma/base.prisma).
CREATE TABLE "reports" (
    "id" UUID NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "result" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "reports_pkey" PRIMARY KEY ("id")
);

-- A deferred constraint lets a test make COMMIT itself fail: insert the same id twice inside a transaction.
CREATE TABLE "commit_guards" (
    "id" INTEGER NOT NULL,
    CONSTRAINT "commit_guards_unique" UNIQUE ("id") DEFERRABLE INITIALLY DEFERRED
);
