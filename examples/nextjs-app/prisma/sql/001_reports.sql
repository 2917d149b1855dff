-- The example's own table: one row per report a person asked for (model Report in prisma/schema/schema.prisma).
CREATE TABLE "reports" (
    "id" UUID NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "result" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "reports_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "reports_status_check" CHECK ("status" IN ('pending', 'done'))
);

CREATE INDEX "reports_created_at_idx" ON "reports"("created_at" DESC);
