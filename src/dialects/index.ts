// Picks the dialect for a connection URL or an app's Prisma client. The one module that imports every dialect; the
// interface it hands out (store/) imports none, so no import runs back up.

import type { Dialect, OpenStoreOptions } from "../store/dialect.js";
import type { Store } from "../store/store.js";
import type { TaskTable } from "../store/task-table.js";
import { TaskQueueConfigError } from "../errors.js";
import { redactUrl } from "../redact-url.js";
import { mysqlDialect } from "./mysql/index.js";
import { postgresDialect } from "./postgres/index.js";
import { sqliteDialect } from "./sqlite/index.js";

/** Every dialect, in the order error messages list them. */
export const DIALECTS: readonly Dialect[] = [postgresDialect, sqliteDialect, mysqlDialect];

/** What is supported, for error messages: "PostgreSQL (postgresql://…)". */
function supportedDatabases(): string {
  return DIALECTS.map((dialect) => `${dialect.displayName} (${dialect.urlExample})`).join(", ");
}

/** The databases with notifications, for messages: "a PostgreSQL URL (postgresql://…)". */
export function notificationUrls(): string {
  const urls = DIALECTS.filter((dialect) => dialect.capabilities.notifications).map((dialect) => `${dialect.displayName} URL (${dialect.urlExample.split("//")[0]}//…)`);
  return `a ${urls.join(" or a ")}`;
}

/** The databases with notifications, for messages: "PostgreSQL". */
export function notificationDatabases(): string {
  return DIALECTS.filter((dialect) => dialect.capabilities.notifications)
    .map((dialect) => dialect.displayName)
    .join(" or ");
}

/** The dialect of a connection URL; throws TaskQueueConfigError naming `option` when none serves it. */
export function dialectForUrl(url: unknown, option = "databaseUrl"): Dialect {
  if (typeof url !== "string" || url === "") {
    throw new TaskQueueConfigError(option, `must be a database URL such as ${postgresDialect.urlExample}, got ${JSON.stringify(url)}.`);
  }
  const dialect = DIALECTS.find((candidate) => candidate.matchesUrl(url));
  if (!dialect) {
    throw new TaskQueueConfigError(option, `${JSON.stringify(redactUrl(url))} is not a URL of a supported database. Supported: ${supportedDatabases()}.`);
  }
  return dialect;
}

/** The dialect of a Prisma datasource provider ("postgresql", "sqlite", …), or undefined when none serves it. */
export function dialectForProvider(provider: string): Dialect | undefined {
  return DIALECTS.find((candidate) => candidate.prismaProviders.includes(provider));
}

/** The supported providers, for error messages: `PostgreSQL (provider "postgresql")`. */
export function supportedProviders(): string {
  return DIALECTS.map((d) => `${d.displayName} (provider "${d.prismaProviders[0]}")`).join(", ");
}

/** The dialect of a Prisma client, from its datasource provider; throws TaskQueueConfigError when none serves it. */
export function dialectForPrisma(client: unknown, option = "prisma"): Dialect {
  const provider = prismaProvider(client);
  const dialect = provider === undefined ? undefined : dialectForProvider(provider);
  if (!dialect) {
    throw new TaskQueueConfigError(
      option,
      `${provider === undefined ? "this Prisma client does not say which database it uses" : `Prisma's "${provider}" provider is not supported`}. ` +
        `Supported: ${supportedProviders()}.`,
    );
  }
  const adapter = adapterName(client);
  const problem = adapter === undefined ? undefined : dialect.adapterProblem?.(adapter);
  if (problem) throw new TaskQueueConfigError(option, problem);
  return dialect;
}

/** The name of a Prisma client's driver adapter ("@prisma/adapter-pg", …), or undefined when it has none or hides it. */
function adapterName(client: unknown): string | undefined {
  const name = (client as { _engineConfig?: { adapter?: { adapterName?: unknown } } } | null)?._engineConfig?.adapter?.adapterName;
  return typeof name === "string" ? name : undefined;
}

/** Opens a store on `url` with the dialect the URL names. */
export function openStore(url: string, options: OpenStoreOptions, option = "databaseUrl"): Store {
  return dialectForUrl(url, option).openStore(url, options);
}

/** A store whose operations run through the app's Prisma client. */
export function prismaStore(client: unknown, table: TaskTable, option = "prisma"): Store {
  return dialectForPrisma(client, option).prismaStore(client, table, option);
}

/** The datasource provider of a Prisma client ("postgresql", "sqlite", …), or undefined when it does not tell. */
function prismaProvider(client: unknown): string | undefined {
  const provider = (client as { _activeProvider?: unknown } | null)?._activeProvider;
  return typeof provider === "string" ? provider : undefined;
}
