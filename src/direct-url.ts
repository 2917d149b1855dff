// The directUrl option of the worker and the cleaner: checked the same way by both, at construction.

import { dialectForUrl } from "./dialects/index.js";
import { TaskQueueConfigError } from "./errors.js";
import { redactUrl } from "./redact-url.js";

/** Throws TaskQueueConfigError unless `directUrl` is absent or a URL of the same database family as `databaseUrl`. */
export function checkDirectUrl(directUrl: unknown, databaseUrl: string | undefined): void {
  if (directUrl === undefined) return;
  const dialect = dialectForUrl(directUrl, "directUrl");
  if (databaseUrl !== undefined && dialectForUrl(databaseUrl) !== dialect) {
    throw new TaskQueueConfigError(
      "directUrl",
      `${JSON.stringify(redactUrl(directUrl as string))} is not a URL of the same database as databaseUrl: directUrl is the same database reached without the pooler.`,
    );
  }
}
