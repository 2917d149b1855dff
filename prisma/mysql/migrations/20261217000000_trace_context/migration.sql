-- prisma-task-queue (MySQL 8.0.4+ / MariaDB 10.6+): the trace context of the span that enqueued a task (W3C
-- traceparent, and tracestate when there is one, as a small JSON object), written by the enqueue's insert when the app
-- traces with OpenTelemetry, so that every run of the task links its span to the enqueue. A nullable trailing column:
-- MariaDB 10.11 and MySQL 8.0.12+ add it instantly, with tasks in flight.
ALTER TABLE `tasks` ADD COLUMN `trace_context` TEXT NULL;
