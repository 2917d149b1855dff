-- prisma-task-queue: the trace context of the span that enqueued a task (W3C traceparent, and tracestate when there is
-- one, as a small JSON object), written by the enqueue's insert when the app traces with OpenTelemetry, so that every
-- run of the task, in any process, links its span to the enqueue. Nullable without a default: adding it rewrites no row
-- (a catalog change), so it runs with tasks in flight. It still needs the table's ACCESS EXCLUSIVE lock for that
-- moment, and queues behind any open transaction on the table (set lock_timeout).
ALTER TABLE "tasks" ADD COLUMN "trace_context" TEXT;
