// The retry delay formula: exponential growth from baseMs by factor, capped at maxMs, spread by ±jitter.

import { expect, it } from "vitest";
import { backoffDelayMs, DEFAULT_BACKOFF } from "../../src/backoff.js";

it("doubles from 1 s by default and caps at one hour", () => {
  const middle = () => 0.5; // no jitter either way
  expect([1, 2, 3, 4].map((attempt) => backoffDelayMs(undefined, attempt, middle))).toEqual([1000, 2000, 4000, 8000]);
  expect(backoffDelayMs(undefined, 30, middle)).toBe(DEFAULT_BACKOFF.maxMs);
});

it("spreads each delay by at most ±jitter, and never past maxMs", () => {
  expect(backoffDelayMs({ baseMs: 1000 }, 1, () => 0)).toBe(800);
  expect(backoffDelayMs({ baseMs: 1000 }, 1, () => 0.999999)).toBe(1200);
  expect(backoffDelayMs({ baseMs: 1000, maxMs: 1000 }, 1, () => 0.999999)).toBe(1000);
  expect(backoffDelayMs({ baseMs: 100, factor: 3, jitter: 0 }, 3, Math.random)).toBe(900);
});

it("ignores undefined fields of a partial policy", () => {
  expect(backoffDelayMs({ baseMs: undefined, jitter: 0 }, 2)).toBe(2000);
});
