// The public API of the dashboard, served from the "prisma-task-queue/dashboard" subpath so that apps importing
// the package root never load the web server and its assets.

export { createDashboard } from "./create-dashboard.js";
export { TaskTableUnreadableError } from "../errors.js";
export type { Dashboard } from "./create-dashboard.js";
export { startDashboardServer } from "./server.js";
export type { DashboardServer, DashboardServerOptions } from "./server.js";
export type { AuthorizeContext, DashboardOptions } from "./dashboard-options.js";
