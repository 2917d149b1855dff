// Task ids: UUIDs in the canonical 8-4-4-4-12 form (version 7 when this package made them, see uuid.ts). The one
// pattern that wake-up bodies, CLI arguments and dashboard URLs are checked against.

const TASK_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when `value` is a UUID in the canonical form (either case). */
export function isTaskId(value: unknown): value is string {
  return typeof value === "string" && TASK_ID.test(value);
}
