// Recurring tasks as the store keeps them: a row per declared schedule holding the latest slot fired or passed over,
// and a row per fired slot whose unique key refuses a second firing. The cron parsing and the cleaner's step that fires
// slots live elsewhere; these are the values they hand the store and read back.

/** A schedule as the app declares it. */
export interface ScheduleDeclaration {
  /** The schedule's id: "<task name>#<key>", at most 400 characters. */
  schedule: string;
  taskName: string;
  cron: string;
  /** An IANA time zone name: "Europe/Paris", "UTC". */
  timeZone: string;
}

/** A schedule's row. */
export interface ScheduleState extends ScheduleDeclaration {
  /** The latest slot fired or passed over: slots at or before it never fire. */
  lastSlot: Date;
  updatedAt: Date;
}

/** The longest schedule id a row holds (MySQL's VARCHAR(400); the same bound on every dialect). */
export const MAX_SCHEDULE_LENGTH = 400;

/**
 * The declarations to write, one per schedule id (the last one given wins), in id order, so that two processes
 * syncing the same schedules lock their rows in the same order. Throws a RangeError for an id over the bound.
 */
export function distinctDeclarations(declared: readonly ScheduleDeclaration[]): ScheduleDeclaration[] {
  const byId = new Map<string, ScheduleDeclaration>();
  for (const declaration of declared) {
    if ([...declaration.schedule].length > MAX_SCHEDULE_LENGTH) {
      throw new RangeError(`the schedule id ${JSON.stringify(declaration.schedule.slice(0, 60))}… is over ${MAX_SCHEDULE_LENGTH} characters; shorten its key`);
    }
    byId.set(declaration.schedule, declaration);
  }
  return [...byId.values()].sort((a, b) => compareIds(a.schedule, b.schedule));
}

/** Orders ids by code point, as the databases' binary collations do. */
export function compareIds(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}
