-- prisma-task-queue on SQLite: the trace context of the span that enqueued a task (W3C traceparent, and tracestate
-- when there is one, as a small JSON object), written by the enqueue's insert when the app traces with OpenTelemetry,
-- so that every run of the task links its span to the enqueue. Adding a nullable column rewrites no row: this runs with
-- tasks in flight.
ALTER TABLE "tasks" ADD COLUMN "trace_context" TEXT;
