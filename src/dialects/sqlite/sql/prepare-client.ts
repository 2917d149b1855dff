// SQL units run once on the app's Prisma client before its first enqueue: switch the file to WAL (readers never
// block the writer; a commit never waits for readers, so it cannot fail with SQLITE_BUSY), read back the time format
// the adapter writes, and learn which file the client opened.

import type { StoreProblem } from "../../../store/store-problem.js";
import type { Db } from "../../../store/db.js";

interface ClientReport {
  /** The absolute path of the client's main database file. */
  file: string | undefined;
  problem?: StoreProblem;
  notes: string[];
}

const EPOCH_AS_STORED = "1970-01-01T00:00:00.000+00:00";

export async function prepareClient(db: Db): Promise<ClientReport> {
  const notes: string[] = [];
  try {
    const [mode] = await db.query<{ journal_mode: string }>("PRAGMA journal_mode = WAL", []);
    if (mode?.journal_mode !== "wal")
      notes.push(
        `the SQLite file stays in journal mode ${mode?.journal_mode ?? "(unknown)"}, not WAL: a commit can then fail with SQLITE_BUSY while another process reads`,
      );
  } catch (error) {
    notes.push(`could not switch the SQLite file to WAL (${(error as Error).message}); it stays in its journal mode until a worker or the CLI opens it`);
  }
  const [probe] = await db.query<{ probe: unknown }>("SELECT ? AS probe", [new Date(0)]);
  const [main] = await db.query<{ file: string }>("SELECT file FROM pragma_database_list WHERE name = 'main'", []);
  const stored = probe?.probe instanceof Date ? probe.probe.toISOString().replace("Z", "+00:00") : probe?.probe;
  if (stored !== EPOCH_AS_STORED) {
    return {
      file: main?.file || undefined,
      notes,
      problem: {
        kind: "incompatible",
        lasting: true,
        message: `the Prisma adapter writes times as ${JSON.stringify(stored)}, not ISO 8601 text such as "${EPOCH_AS_STORED}"`,
        detail:
          `prisma-task-queue's SQL compares times as ISO 8601 text: create the adapter with timestampFormat "iso8601" (its default), ` +
          `e.g. new PrismaBetterSqlite3({ url }) without timestampFormat: "unixepoch-ms"`,
      },
    };
  }
  return { file: main?.file || undefined, notes };
}
