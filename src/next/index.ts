// prisma-task-queue/next: running the queue inside a Next.js deployment (Node.js runtime).

export { cronRoute, refuseEdgeRuntime } from "./cron-route.js";
export type { CronRoute, CronRouteOptions } from "./cron-route.js";
export { runDueTasks } from "../serverless/run-due-tasks.js";
export type { DueTasksSummary, RunDueTasksOptions } from "../serverless/run-due-tasks.js";
export { startTaskRunner } from "./task-runner.js";
export type { TaskRunner, TaskRunnerOptions } from "./task-runner.js";
