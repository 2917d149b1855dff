// The fence of a run's outcome writes on MySQL/MariaDB: the locking read by primary key returns each held row's
// attempts, and the write keeps those that are the run it names (the attempt its claim set), so a write retried after
// an unclear error never lands on a later run of the same worker.

/** Each id's (lowercased) run attempt; undefined when the caller names no attempts (any run of the owner). */
export function runAttempts(ids: readonly string[], attempts: readonly (number | undefined)[] | undefined): Map<string, number> | undefined {
  if (!attempts) return undefined;
  const runs = new Map<string, number>();
  ids.forEach((id, i) => {
    const attempt = attempts[i];
    if (attempt !== undefined) runs.set(id.toLowerCase(), attempt);
  });
  return runs;
}

/** The held rows that are the run the write names (all of them without `runs`). */
export function sameRun<Row extends { id: string; attempts: unknown }>(rows: readonly Row[], runs: ReadonlyMap<string, number> | undefined): Row[] {
  if (!runs) return [...rows];
  return rows.filter((row) => {
    const attempt = runs.get(row.id.toLowerCase());
    return attempt === undefined || Number(row.attempts) === attempt;
  });
}
