-- prisma-task-queue on SQLite: the scaling signal's tallies. A row per queue, writer and 5-second slot of the
-- database's clock (`slot`: its start, Unix seconds): the successes a worker's completion batches wrote in that slot
-- and their handlers' run time (`timed` of them reported one), and the tasks enqueued in that slot whose rows were
-- deleted since (on success, or pruned: `deleted`), so that arrival and completion rates stay right when rows are gone.
-- The cleaner's prune deletes rows older than 15 minutes. The row with an empty queue and writer holds in `slot` the
-- second tallying began: the signal counts from then. A new table: this runs with tasks in flight.
CREATE TABLE "tasks_tallies" (
    "queue" TEXT NOT NULL,
    "writer" TEXT NOT NULL,
    "slot" INTEGER NOT NULL,
    "succeeded" INTEGER NOT NULL DEFAULT 0,
    "timed" INTEGER NOT NULL DEFAULT 0,
    "run_ms" INTEGER NOT NULL DEFAULT 0,
    "deleted" INTEGER NOT NULL DEFAULT 0,

    PRIMARY KEY ("writer", "slot", "queue")
);

-- The signal and the prune read by slot.
CREATE INDEX "tasks_tallies_slot_idx" ON "tasks_tallies"("slot");

INSERT INTO "tasks_tallies" ("queue", "writer", "slot", "run_ms") VALUES ('', '', CAST(strftime('%s', 'now') AS INTEGER), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
