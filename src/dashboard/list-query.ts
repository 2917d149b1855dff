// Reads the task list's filters and page from the URL's query, rejecting what cannot be a filter (with a message),
// and turns the time range into id bounds (ids are uuidv7: their first 48 bits are the enqueue time).

import { uuidv7AtTime } from "../uuid.js";
import { isTaskId } from "../store/task-id.js";
import { TASK_STATUSES } from "../store/task-status.js";
import type { PageRequest, StatusFilter, TaskFilter } from "../store/views.js";

export const STATUS_FILTERS: ReadonlyArray<{ value: StatusFilter; label: string }> = [
  { value: "pending", label: "pending" },
  { value: "due", label: "pending — due now" },
  { value: "running", label: "running" },
  { value: "expired", label: "running — lease expired" },
  { value: "succeeded", label: "succeeded" },
  { value: "dead", label: "dead" },
  { value: "cancelled", label: "cancelled" },
];

/** The list query as the form shows it (raw strings) and as SQL takes it. */
export interface ListQuery {
  form: { status: string; queue: string; name: string; key: string; from: string; to: string };
  filter: TaskFilter;
  page: PageRequest;
  problems: string[];
}

const PAGE_SIZE = 50;
const LOCAL_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

export function parseListQuery(params: URLSearchParams): ListQuery {
  const text = (name: string) => (params.get(name) ?? "").trim().slice(0, 300);
  const form = { status: text("status"), queue: text("queue"), name: text("name"), key: text("key"), from: text("from"), to: text("to") };
  const problems: string[] = [];
  const filter: TaskFilter = {};
  if (form.status) {
    if (STATUS_FILTERS.some((s) => s.value === form.status)) filter.status = form.status as StatusFilter;
    else problems.push(`Unknown status "${form.status}": use one of ${[...TASK_STATUSES, "due", "expired"].join(", ")}.`);
  }
  if (form.queue) filter.queue = form.queue;
  if (form.name) filter.name = form.name;
  if (form.key) filter.key = form.key;
  const from = parseUtc(form.from, "from", problems);
  const to = parseUtc(form.to, "to", problems);
  if (from !== undefined) filter.fromId = idAtTime(from);
  // "to" includes its whole minute (or second, when seconds are given).
  if (to !== undefined) filter.toId = idAtTime(to + (form.to.length > 16 ? 1_000 : 60_000));
  const page: PageRequest = { limit: PAGE_SIZE };
  const before = text("before");
  const after = text("after");
  if (before && isTaskId(before)) page.before = before;
  else if (after && isTaskId(after)) page.after = after;
  else if (before || after) problems.push("The page cursor is not a task id; showing the newest tasks.");
  return { form, filter, page, problems };
}

/** "2026-11-21T06:10" (a datetime-local value, read as UTC) → Unix ms. */
function parseUtc(value: string, field: string, problems: string[]): number | undefined {
  if (!value) return undefined;
  const match = LOCAL_TIME.exec(value);
  const ms = match ? Date.UTC(+match[1]!, +match[2]! - 1, +match[3]!, +match[4]!, +match[5]!, +(match[6] ?? 0)) : Number.NaN;
  if (Number.isNaN(ms)) {
    problems.push(`"${value}" is not a time for "${field}": use YYYY-MM-DDTHH:MM (UTC).`);
    return undefined;
  }
  return ms;
}

/** The lowest task id of the millisecond `ms`. */
export function idAtTime(ms: number): string {
  return uuidv7AtTime(ms);
}
