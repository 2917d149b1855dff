// prisma-task-queue/testing: helpers for an app's own tests. recordEnqueues() records and asserts on what commits
// through the app's client; inlineQueue() also runs each committed task right away, through the worker's real claim.

export { recordEnqueues } from "./enqueue-recorder.js";
export type { EnqueueRecorder } from "./enqueue-recorder.js";
export { inlineQueue } from "./inline-queue.js";
export type { InlineQueue, InlineQueueOptions } from "./inline-queue.js";
export type { EnqueueMatch } from "./enqueue-match.js";
export type { CommittedEnqueue } from "../enqueue/committed-enqueues.js";
export type { InlineRun } from "./inline-run.js";
export { InlineTaskError, TaskAssertionError } from "./testing-errors.js";
