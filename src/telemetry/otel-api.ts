// Loads @opentelemetry/api, an optional peer dependency, once: undefined when the app has not installed it, so that an
// app without OpenTelemetry pays one check per event and sees no error.

import type * as OtelApi from "@opentelemetry/api";
import { MissingPackageError } from "../errors.js";
import { optionalPackage } from "../optional-package.js";

export type { OtelApi };

let loaded: { api: typeof OtelApi | undefined } | undefined;

/** The OpenTelemetry API, or undefined when it is not installed. A broken install is thrown as it is. */
export function otelApi(): typeof OtelApi | undefined {
  if (loaded) return loaded.api;
  try {
    loaded = { api: optionalPackage<typeof OtelApi>("@opentelemetry/api") };
  } catch (error) {
    if (!(error instanceof MissingPackageError)) throw error;
    loaded = { api: undefined };
  }
  return loaded.api;
}
