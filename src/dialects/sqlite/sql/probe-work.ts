// The SQL unit of a bounded pass's first read (runDueTasks): the queues' rows, whether a lease expired, and the
// schedules' last slots, in one statement: one UNION ALL whose rows say by `kind` what they are.

import type { Db } from "../../../store/db.js";
import { probeFromRows, type ProbeRowKind, type WorkProbe } from "../../../store/work-probe.js";
import { toDate } from "../clock.js";
import type { SqliteTable } from "../table.js";
import { QUEUE_COLUMNS, toQueueState, type QueueRow } from "./queue-controls.js";
import { EXPIRED } from "./recover-leases.js";

/** A queue row; a schedule's row carries its id in `queue` and its last slot in `updated_at`; the expired lease's row nothing. */
interface ProbeRow extends QueueRow {
  kind: ProbeRowKind;
}

export async function probeWork(db: Db, table: SqliteTable): Promise<WorkProbe> {
  const rows = await db.query<ProbeRow>(
    `SELECT 'queue' AS kind, ${QUEUE_COLUMNS} FROM ${table.queues}
     UNION ALL
     SELECT 'schedule', schedule, NULL, NULL, NULL, NULL, last_slot FROM ${table.schedules}
     UNION ALL
     SELECT 'expired', NULL, NULL, NULL, NULL, NULL, NULL WHERE EXISTS (SELECT 1 FROM ${table.sql} WHERE ${EXPIRED})`,
    [],
  );
  return probeFromRows(rows, toQueueState, (row) => ({ schedule: row.queue, lastSlot: toDate(row.updated_at) }));
}
