// Time-ordered UUIDs (version 7, RFC 9562) for task ids, so new rows land at the end of the primary key index.

import { randomFillSync } from "node:crypto";

const pool = Buffer.alloc(16 * 256);
let offset = pool.length;
let lastMs = 0;
let counter = 0;

/** When a UUIDv7 was made (its first 48 bits); undefined for an id of another version. */
export function uuidv7Time(id: string): Date | undefined {
  const hex = id.replaceAll("-", "");
  if (hex.length !== 32 || hex[12] !== "7") return undefined;
  return new Date(parseInt(hex.slice(0, 12), 16));
}

/** A new UUIDv7: 48 bits of Unix milliseconds, then a counter and random bits that keep ids monotonic within a process. */
export function uuidv7(): string {
  if (offset >= pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const bytes = pool.subarray(offset, offset + 16);
  offset += 16;
  let ms = Date.now();
  if (ms <= lastMs) {
    counter = (counter + 1) & 0xfff;
    if (counter === 0) lastMs += 1;
    ms = lastMs;
  } else {
    lastMs = ms;
    counter = bytes[6]! & 0x7;
  }
  bytes[0] = Math.floor(ms / 2 ** 40) & 0xff;
  bytes[1] = Math.floor(ms / 2 ** 32) & 0xff;
  bytes[2] = (ms >>> 24) & 0xff;
  bytes[3] = (ms >>> 16) & 0xff;
  bytes[4] = (ms >>> 8) & 0xff;
  bytes[5] = ms & 0xff;
  bytes[6] = 0x70 | ((counter >>> 8) & 0x0f);
  bytes[7] = counter & 0xff;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The lowest UUIDv7 of the millisecond `ms` (Unix): every id made at or after that time sorts at or above it. */
export function uuidv7AtTime(ms: number): string {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, "0").slice(-12);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}
