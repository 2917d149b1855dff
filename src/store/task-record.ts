// A task row as the store returns it and a handler receives it: camelCase fields, Dates, JSON already parsed.

import type { TaskStatus } from "./task-status.js";

/** A task row as the worker hands it to a handler. */
export interface TaskRecord {
  id: string;
  name: string;
  queue: string;
  payload: unknown;
  status: TaskStatus;
  priority: number;
  runAt: Date;
  attempts: number;
  maxAttempts: number;
  leaseOwner: string | null;
  leaseExpiresAt: Date | null;
  lastError: string | null;
  result: unknown;
  key: string | null;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
  publishedAt: Date | null;
}
