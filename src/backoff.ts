// Retry delays: exponential backoff with jitter, per task policy (BackoffPolicy in define-tasks.ts).
// The worker adds the delay to the database clock (run_at = now() + delay), so only the length is computed here.

import type { BackoffPolicy } from "./define-tasks.js";
import { valueText } from "./value-text.js";

/** The defaults of BackoffPolicy: 1 s, doubling, at most 1 hour, ±20 %. */
export const DEFAULT_BACKOFF: Required<BackoffPolicy> = { baseMs: 1000, factor: 2, maxMs: 3_600_000, jitter: 0.2 };

/**
 * Delay in milliseconds before the next run of a task whose `attempt`-th run (1-based) just failed:
 * min(maxMs, baseMs * factor^(attempt-1)), spread by ±jitter. `random` is injectable for tests.
 */
export function backoffDelayMs(policy: BackoffPolicy | undefined, attempt: number, random: () => number = Math.random): number {
  const { baseMs, factor, maxMs, jitter } = { ...DEFAULT_BACKOFF, ...definedOnly(policy) };
  const exponent = Math.max(0, attempt - 1);
  const base = Math.min(maxMs, baseMs * factor ** exponent);
  const spread = 1 + jitter * (2 * random() - 1);
  return Math.max(0, Math.round(Math.min(maxMs, base * spread)));
}

/** Why `policy` cannot work, or undefined when it can. Checked by defineTasks(), and again when a worker is created. */
export function backoffPolicyProblem(policy: unknown): string | undefined {
  if (policy === undefined) return undefined;
  if (typeof policy !== "object" || policy === null) return `backoff must be an object such as { baseMs: 1000 }, got ${JSON.stringify(policy)}`;
  const { baseMs, factor, maxMs, jitter } = policy as Record<string, unknown>;
  if (baseMs !== undefined && !(typeof baseMs === "number" && Number.isFinite(baseMs) && baseMs >= 0)) {
    return `backoff.baseMs must be a number of milliseconds ≥ 0, got ${valueText(baseMs)}`;
  }
  if (factor !== undefined && !(typeof factor === "number" && Number.isFinite(factor) && factor >= 1)) {
    return `backoff.factor must be a number ≥ 1, got ${valueText(factor)}`;
  }
  if (maxMs !== undefined && !(typeof maxMs === "number" && Number.isFinite(maxMs) && maxMs >= 0)) {
    return `backoff.maxMs must be a number of milliseconds ≥ 0, got ${valueText(maxMs)}`;
  }
  if (jitter !== undefined && !(typeof jitter === "number" && jitter >= 0 && jitter <= 1)) {
    return `backoff.jitter must be a fraction from 0 to 1, got ${valueText(jitter)}`;
  }
  return undefined;
}

function definedOnly(policy: BackoffPolicy | undefined): BackoffPolicy {
  const result: BackoffPolicy = {};
  if (!policy) return result;
  for (const key of ["baseMs", "factor", "maxMs", "jitter"] as const) {
    if (policy[key] !== undefined) result[key] = policy[key];
  }
  return result;
}
