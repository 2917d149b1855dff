-- prisma-task-queue: the scaling signal's tallies. A row per queue, writer and 5-second slot of the database's clock
-- (`slot`: its start, Unix seconds): the successes a worker's completion batches wrote in that slot and their handlers'
-- run time (`timed` of them reported one), and the tasks enqueued in that slot whose rows were deleted since (on
-- success, or pruned: `deleted`), so that arrival and completion rates stay right when rows are gone. Each writer has
-- rows of its own, keyed by writer first, so workers never wait for one another here; the cleaner's prune deletes rows
-- older than 15 minutes. The row with an empty queue and writer holds in `run_ms` the Unix millisecond tallying began:
-- the signal counts from then. A new table: this runs with tasks in flight.
CREATE TABLE "tasks_tallies" (
    "queue" TEXT NOT NULL,
    "writer" TEXT NOT NULL,
    "slot" BIGINT NOT NULL,
    "succeeded" INTEGER NOT NULL DEFAULT 0,
    "timed" INTEGER NOT NULL DEFAULT 0,
    "run_ms" BIGINT NOT NULL DEFAULT 0,
    "deleted" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "tasks_tallies_pkey" PRIMARY KEY ("writer", "slot", "queue")
);

-- The signal and the prune read by slot.
CREATE INDEX "tasks_tallies_slot_idx" ON "tasks_tallies"("slot");

INSERT INTO "tasks_tallies" ("queue", "writer", "slot", "run_ms") VALUES ('', '', floor(extract(epoch FROM now()))::bigint, floor(extract(epoch FROM now()) * 1000)::bigint);
