-- The example's orders (model Order in prisma/schema/schema.prisma): placed with their fulfil-order workflow in one
-- transaction; the workflow moves the status along, and the warehouse's webhook writes the tracking number.
CREATE TABLE "orders" (
    "id" UUID NOT NULL,
    "items" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'placed',
    "workflow_id" UUID,
    "charge_id" TEXT,
    "boxes" JSONB,
    "tracking" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "orders_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "orders_status_check" CHECK ("status" IN ('placed', 'charged', 'packed', 'shipped', 'completed'))
);
