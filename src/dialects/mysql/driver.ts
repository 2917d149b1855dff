// Loads the mariadb driver, an optional peer dependency that only this dialect needs: loaded when a store opens on a
// MySQL or MariaDB URL, never at start-up, so an app on PostgreSQL installs nothing for MySQL.

import { optionalPackage } from "../../optional-package.js";

/** The driver module, as this dialect uses it. */
export type MariadbModule = typeof import("mariadb");

/** The mariadb module; throws MissingPackageError when the package is not installed. */
export function mariadbDriver(): MariadbModule {
  return optionalPackage<MariadbModule>("mariadb");
}
