// Loads pg, the PostgreSQL dialect's driver: an optional peer dependency, so a SQLite or MySQL app installs nothing
// for it. Loaded when a store opens on a postgresql:// URL (and by the sessions such a store opens), never at start-up.

import type pg from "pg";
import { optionalPackage } from "../../optional-package.js";

/** The driver module, as this dialect uses it. */
type PgModule = typeof pg;

/** The pg module; throws MissingPackageError when the package is not installed. */
export function pgDriver(): PgModule {
  return optionalPackage<PgModule>("pg");
}
