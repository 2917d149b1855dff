// Formatting of numbers, times and ages for the pages. Ages are computed against the database's clock (passed in),
// so a web server with a skewed clock does not make tasks look stuck.

import { html, type Html } from "./html.js";

const integer = new Intl.NumberFormat("en-US");

/** 1234567 → "1,234,567"; an estimate gets a leading "≈". */
export function formatCount(count: number, estimated = false): string {
  return `${estimated ? "≈" : ""}${integer.format(Math.round(count))}`;
}

/** Seconds → "45 s", "12 min", "3 h 20 min", "2 d 4 h". */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}

export function toDate(value: Date | string | null | undefined): Date | null {
  if (value === null || value === undefined) return null;
  return value instanceof Date ? value : new Date(value);
}

/** "2026-11-21 06:10:25 UTC" */
export function formatUtc(value: Date | string | null | undefined): string {
  const date = toDate(value);
  if (!date || Number.isNaN(date.getTime())) return "—";
  return `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** "3 min ago" / "in 5 min" relative to `now`. */
export function relative(value: Date | string | null | undefined, now: Date): string {
  const date = toDate(value);
  if (!date) return "—";
  const seconds = (now.getTime() - date.getTime()) / 1000;
  if (Math.abs(seconds) < 1) return "just now";
  return seconds >= 0 ? `${formatDuration(seconds)} ago` : `in ${formatDuration(-seconds)}`;
}

/** A <time> element: relative text, the exact UTC time in its title. */
export function timeTag(value: Date | string | null | undefined, now: Date): Html {
  const date = toDate(value);
  if (!date) return html`<span class="muted">—</span>`;
  return html`<time datetime="${date.toISOString()}" title="${formatUtc(date)}">${relative(date, now)}</time>`;
}

/** Pretty JSON of a stored value (jsonb arrives parsed; a string that holds JSON is parsed first). */
export function prettyJson(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value, null, 2);
}

/** The last 8 characters of a uuid (its random part: uuidv7 ids share their leading time bits), for dense tables. */
export function shortId(id: string): string {
  return id.slice(-8);
}
