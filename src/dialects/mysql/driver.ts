// Loads the mariadb driver, an optional peer dependency that only this dialect needs: imported on first use, never at
// start-up, so an app on PostgreSQL installs nothing for MySQL. A missing package becomes an error naming it.

import { TaskQueueConfigError } from "../../errors.js";

/** The driver module, as this dialect uses it. */
export type MariadbModule = typeof import("mariadb");

/** The mariadb package is not installed where prisma-task-queue can import it. */
export class MysqlDriverMissingError extends TaskQueueConfigError {
  constructor(cause: unknown) {
    super(
      "databaseUrl",
      `a MySQL or MariaDB URL needs the "mariadb" driver package, an optional peer dependency of prisma-task-queue, ` +
        `and it is not installed. Install it beside prisma-task-queue: npm install mariadb`,
    );
    (this as { cause?: unknown }).cause = cause;
  }
}

let loading: Promise<MariadbModule> | undefined;

/** The mariadb module; rejects with MysqlDriverMissingError when the package cannot be found. */
export function loadMariadb(): Promise<MariadbModule> {
  loading ??= import("mariadb").then(
    (module) => ((module as { default?: MariadbModule }).default ?? module) as MariadbModule,
    (error: unknown) => {
      loading = undefined;
      throw isModuleNotFound(error) ? new MysqlDriverMissingError(error) : error;
    },
  );
  return loading;
}

function isModuleNotFound(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return (e?.code === "ERR_MODULE_NOT_FOUND" || e?.code === "MODULE_NOT_FOUND") && String(e.message).includes("mariadb");
}
