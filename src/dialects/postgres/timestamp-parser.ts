// A fast reader of PostgreSQL's timestamptz text ("2026-11-21 08:35:10.123456+00"), for the worker's pg pool: the
// claim returns six timestamps per task, and pg's regular-expression parser was 4 % of a drain's CPU. The result is
// the same Date pg's own parser gives (milliseconds truncated); any other shape (BC, infinity, years outside
// 1000–9999, seconds in the offset) goes to pg's parser.

import { pgDriver } from "./driver.js";

const TIMESTAMPTZ_OID = 1184;

/** pg's own parser, for the shapes this one leaves to it (pg is loaded by then: only a pg pool parses with this). */
function fallback(text: string): Date | number | null {
  return (pgDriver().types.getTypeParser(TIMESTAMPTZ_OID, "text") as (text: string) => Date | number | null)(text);
}

/** Parses a timestamptz in DateStyle ISO output; the same result as pg's default parser. */
export function parseTimestamptz(text: string): Date | number | null {
  const length = text.length;
  if (length < 22 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 32) return fallback(text);
  if (text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return fallback(text);
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  if (year < 1000 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return fallback(text);
  let at = 19;
  let ms = 0;
  if (text.charCodeAt(at) === 46) {
    at += 1;
    let scale = 100;
    for (let code = text.charCodeAt(at); code >= 48 && code <= 57; code = text.charCodeAt(++at)) {
      ms += (code - 48) * scale;
      scale /= 10;
    }
    ms = Math.floor(ms);
  }
  const sign = text.charCodeAt(at);
  if (sign !== 43 && sign !== 45) return fallback(text);
  const zoneHours = digits(text, at + 1, 2);
  let zoneMinutes = 0;
  if (length === at + 6 && text.charCodeAt(at + 3) === 58) zoneMinutes = digits(text, at + 4, 2);
  else if (length !== at + 3) return fallback(text);
  if (zoneHours < 0 || zoneMinutes < 0) return fallback(text);
  const offsetMs = (sign === 43 ? 1 : -1) * (zoneHours * 60 + zoneMinutes) * 60_000;
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms) - offsetMs);
}

/** The decimal number in text[at, at + count), or -1 when one of those characters is not a digit. */
function digits(text: string, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const code = text.charCodeAt(i);
    if (code < 48 || code > 57) return -1;
    value = value * 10 + code - 48;
  }
  return value;
}

/** pg's `types` option: timestamptz through parseTimestamptz, every other type as pg reads it. */
export const fastTypes = {
  getTypeParser(oid: number, format?: "text" | "binary"): (value: string) => unknown {
    if (oid === TIMESTAMPTZ_OID && format !== "binary") return parseTimestamptz;
    return pgDriver().types.getTypeParser(oid, format ?? "text") as (value: string) => unknown;
  },
};
