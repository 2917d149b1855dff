// The SQL unit of a bounded pass's first read (runDueTasks): the queues' rows, whether a lease expired, and the
// schedules' last slots, in one statement: one UNION ALL whose rows say by `kind` what they are.

import type { Db } from "../../../store/db.js";
import { probeFromRows, type ProbeRowKind, type WorkProbe } from "../../../store/work-probe.js";
import type { PgTable } from "../table.js";
import { QUEUE_COLUMNS, toQueueState, type QueueRow } from "./queue-controls.js";
import { EXPIRED } from "./recover-leases.js";

/** A queue row; a schedule's row carries its id in `queue` and its last slot in `updatedAtMs`; the expired lease's row nothing. */
interface ProbeRow extends QueueRow {
  kind: ProbeRowKind;
}

export async function probeWork(db: Db, table: PgTable): Promise<WorkProbe> {
  const rows = await db.query<ProbeRow>(
    `SELECT 'queue' AS kind, ${QUEUE_COLUMNS} FROM ${table.queues}
     UNION ALL
     SELECT 'schedule', schedule, NULL, NULL, NULL, NULL, (extract(epoch FROM last_slot) * 1000)::float8 FROM ${table.schedules}
     UNION ALL
     SELECT 'expired', NULL, NULL, NULL, NULL, NULL, NULL WHERE EXISTS (SELECT 1 FROM ${table.sql} WHERE ${EXPIRED})`,
    [],
  );
  return probeFromRows(rows, toQueueState, (row) => ({ schedule: row.queue, lastSlot: new Date(Math.round(Number(row.updatedAtMs))) }));
}
