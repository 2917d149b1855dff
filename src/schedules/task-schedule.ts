// A recurring task as declared on its definition in defineTasks (`schedules: [{ cron, timeZone, payload }]`), and
// the checked form the cleaner fires: its id, its slots and its payload, each checked when defineTasks runs.

import type { TaskDefinition, TaskRegistry } from "../define-tasks.js";
import { TaskDefinitionError } from "../errors.js";
import { parsePayloadNow } from "../payload-validation.js";
import { CronSlots } from "./cron-slots.js";
import type { MissedSlotsPolicy } from "./missed-slots.js";

/** One schedule of a task: a task is enqueued at each slot of `cron`, exactly once per slot across every cleaner. */
export interface TaskSchedule<Payload = unknown> {
  /**
   * A cron expression: 5 fields (minute hour day-of-month month day-of-week, e.g. `"0 3 * * *"`: every day at 03:00)
   * or 6 with seconds first (`"*∕10 * * * * *"`: every 10 s). Read by croner.
   */
  cron: string;
  /** IANA time zone the expression is read in, e.g. "Europe/Paris". Default "UTC". See the DST rule in the docs. */
  timeZone?: string;
  /** The payload of each task, checked against the task's schema by defineTasks. Default `{}`. */
  payload?: Payload;
  /**
   * The schedule's name within its task, kept in the database with its last slot. Default "default"; required when a
   * task has several schedules. Renaming it makes a new schedule (which starts at its next slot).
   */
  key?: string;
  /** What happens to the slots that passed while no cleaner ran. Default "skip". */
  missed?: MissedSlotsPolicy;
}

/** A checked schedule, as the cleaner fires it. */
export interface ResolvedSchedule {
  /** "<task name>#<key>": the schedule's row in the database. */
  id: string;
  taskName: string;
  cron: string;
  timeZone: string;
  slots: CronSlots;
  payload: unknown;
  missed: MissedSlotsPolicy;
}

const KEY_PATTERN = /^[A-Za-z0-9_.:-]{1,100}$/;

/** Every schedule of a registry, checked. Throws TaskDefinitionError naming the task and the bad field. */
export function registrySchedules(tasks: TaskRegistry): ResolvedSchedule[] {
  return Object.entries(tasks).flatMap(([name, definition]) => taskSchedules(name, definition));
}

/** The schedules of one task definition, checked. */
export function taskSchedules(taskName: string, definition: TaskDefinition): ResolvedSchedule[] {
  const declared: unknown = (definition as { schedules?: unknown }).schedules;
  if (declared === undefined) return [];
  if (!Array.isArray(declared)) {
    throw new TaskDefinitionError(taskName, `schedules must be an array of { cron, timeZone?, payload?, key?, missed? }, got ${JSON.stringify(declared)}.`);
  }
  const seen = new Set<string>();
  return declared.map((entry: unknown, index) => {
    const where = `schedules[${index}]`;
    if (typeof entry !== "object" || entry === null) throw new TaskDefinitionError(taskName, `${where} must be an object { cron, … }, got ${JSON.stringify(entry)}.`);
    const schedule = entry as TaskSchedule;
    const key = schedule.key ?? "default";
    if (typeof key !== "string" || !KEY_PATTERN.test(key)) {
      throw new TaskDefinitionError(taskName, `${where}.key must be 1 to 100 letters, digits, "_", ".", ":" or "-", got ${JSON.stringify(schedule.key)}.`);
    }
    if (seen.has(key)) {
      throw new TaskDefinitionError(
        taskName,
        declared.length > 1 && schedule.key === undefined
          ? `${where} has no key, and the task has ${declared.length} schedules: give each a key of its own, e.g. { key: "nightly", cron: … }.`
          : `${where}.key ${JSON.stringify(key)} is used by another schedule of this task; give each a key of its own.`,
      );
    }
    seen.add(key);
    return {
      id: `${taskName}#${key}`,
      taskName,
      cron: schedule.cron,
      timeZone: schedule.timeZone ?? "UTC",
      slots: cronSlots(taskName, where, schedule),
      payload: checkedPayload(taskName, where, definition, schedule.payload),
      missed: checkedPolicy(taskName, where, schedule.missed),
    };
  });
}

function cronSlots(taskName: string, where: string, schedule: TaskSchedule): CronSlots {
  if (typeof schedule.cron !== "string") {
    throw new TaskDefinitionError(taskName, `${where}.cron must be a cron expression such as "0 3 * * *", got ${JSON.stringify(schedule.cron)}.`);
  }
  const timeZone = schedule.timeZone ?? "UTC";
  if (typeof timeZone !== "string" || !isTimeZone(timeZone)) {
    throw new TaskDefinitionError(taskName, `${where}.timeZone must be an IANA time zone such as "Europe/Paris" or "UTC", got ${JSON.stringify(schedule.timeZone)}.`);
  }
  try {
    return new CronSlots(schedule.cron, timeZone);
  } catch (error) {
    throw new TaskDefinitionError(
      taskName,
      `${where}.cron ${JSON.stringify(schedule.cron)} is not a cron expression of 5 fields (minute hour day-of-month month ` +
        `day-of-week) or 6 (seconds first): ${(error as Error).message}`,
    );
  }
}

function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone });
    return true;
  } catch {
    return false;
  }
}

function checkedPayload(taskName: string, where: string, definition: TaskDefinition, given: unknown): unknown {
  const payload = given === undefined ? {} : given;
  let json: string | undefined;
  try {
    json = JSON.stringify(payload);
  } catch (error) {
    throw new TaskDefinitionError(taskName, `${where}.payload is not serialisable as JSON (${(error as Error).message}).`);
  }
  if (json === undefined) throw new TaskDefinitionError(taskName, `${where}.payload must be a JSON value, got ${typeof payload}.`);
  let parsed: ReturnType<typeof parsePayloadNow>;
  try {
    parsed = parsePayloadNow(definition, JSON.parse(json));
  } catch {
    // A schema with async refinements cannot be checked synchronously; the cleaner checks the payload at each slot.
    return payload;
  }
  if (parsed.success) return payload;
  const issues = parsed.error.issues.map((issue) => `${issue.path.join(".") || "(payload)"}: ${issue.message}`).join("; ");
  throw new TaskDefinitionError(taskName, `${where}.payload does not match the task's payload schema (${issues}). Give a payload the schema accepts.`);
}

function checkedPolicy(taskName: string, where: string, missed: unknown): MissedSlotsPolicy {
  if (missed === undefined) return "skip";
  if (missed === "skip" || missed === "latest") return missed;
  if (typeof missed === "object" && missed !== null) {
    const { withinMs, max } = missed as { withinMs?: unknown; max?: unknown };
    const okWithin = Number.isSafeInteger(withinMs) && (withinMs as number) > 0;
    const okMax = max === undefined || (Number.isSafeInteger(max) && (max as number) >= 1 && (max as number) <= 1000);
    if (okWithin && okMax) return { withinMs: withinMs as number, ...(max === undefined ? {} : { max: max as number }) };
  }
  throw new TaskDefinitionError(
    taskName,
    `${where}.missed must be "skip", "latest" or { withinMs: <ms, an integer above 0>, max?: <1 to 1000> }, got ${JSON.stringify(missed)}.`,
  );
}
