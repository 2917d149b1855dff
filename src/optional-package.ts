// The one loader of the optional peer dependencies (database drivers, the RabbitMQ client, the dashboard's web
// framework, tsx): each is loaded where it is used, and one that is not installed becomes a MissingPackageError.

import { createRequire } from "node:module";
import { MissingPackageError } from "./errors.js";

/** Every optional peer: what needs it (the start of the error's sentence) and how to install it. */
const OPTIONAL_PACKAGES = {
  pg: { neededFor: "PostgreSQL URLs (postgresql://) need", fix: "npm install pg" },
  "better-sqlite3": { neededFor: "SQLite URLs (file:) need", fix: "npm install better-sqlite3@12" },
  mariadb: { neededFor: "MySQL and MariaDB URLs need", fix: "npm install mariadb" },
  amqplib: { neededFor: "wake-ups through RabbitMQ (amqpUrl) need", fix: "npm install amqplib" },
  hono: { neededFor: "the dashboard needs", fix: "npm install hono @hono/node-server" },
  "@hono/node-server": { neededFor: "the dashboard needs", fix: "npm install hono @hono/node-server" },
  "@opentelemetry/api": {
    neededFor: "OpenTelemetry spans and metrics need",
    fix: "npm install @opentelemetry/api (and an OpenTelemetry SDK that exports them)",
  },
  tsx: {
    neededFor: "a task-runner config written in TypeScript needs",
    fix: "npm install tsx (or write the config in JavaScript, as task-runner.config.mjs)",
  },
} as const;

/** The name of an optional peer dependency. */
type OptionalPackage = keyof typeof OPTIONAL_PACKAGES;

/** The optional peers, for checks that the manifest declares each of them. */
export const OPTIONAL_PACKAGE_NAMES = Object.keys(OPTIONAL_PACKAGES) as OptionalPackage[];

const require = createRequire(import.meta.url);

/**
 * The modules optionalPackage() loaded, by specifier. Callers on hot paths (pg's type parsers ask for pg once per column
 * of every result) get the module from here: a require() of a bare name resolves its path again each time.
 */
const loaded = new Map<Specifier, unknown>();

/**
 * The module at `specifier` ("pg", "hono/cookie", …), required synchronously (these packages have a CommonJS entry),
 * so that it can be loaded right where it is used, constructors included. Throws MissingPackageError when the package
 * cannot be resolved from prisma-task-queue; any other failure (a broken install, a missing dependency of the package)
 * is thrown as it is.
 */
export function optionalPackage<Module>(specifier: Specifier): Module {
  if (loaded.has(specifier)) return loaded.get(specifier) as Module;
  let module: Module;
  try {
    module = require(specifier) as Module;
  } catch (error) {
    throw missing(error, specifier);
  }
  loaded.set(specifier, module);
  return module;
}

/**
 * The module at `specifier`, imported as ECMAScript module, for the packages whose CommonJS entry does not do the same
 * (tsx's ESM hooks). Rejects with MissingPackageError when the package cannot be resolved, as optionalPackage() throws.
 */
export async function importOptionalPackage<Module>(specifier: Specifier): Promise<Module> {
  try {
    return (await import(specifier)) as Module;
  } catch (error) {
    throw missing(error, specifier);
  }
}

type Specifier = OptionalPackage | `${OptionalPackage}/${string}`;

/** A MissingPackageError when `error` says the package of `specifier` is not installed, else `error` itself. */
function missing(error: unknown, specifier: Specifier): unknown {
  const name = packageOf(specifier);
  const e = error as { code?: unknown; message?: unknown } | null;
  const message = String(e?.message);
  // Only the package itself: a file or a dependency that it requires in turn is a broken install, not a missing peer.
  const notFound =
    (e?.code === "MODULE_NOT_FOUND" && message.startsWith(`Cannot find module '${specifier}'`)) ||
    (e?.code === "ERR_MODULE_NOT_FOUND" && message.startsWith(`Cannot find package '${name}'`));
  if (!notFound) return error;
  const { neededFor, fix } = OPTIONAL_PACKAGES[name];
  return new MissingPackageError(name, neededFor, fix, { cause: error });
}

function packageOf(specifier: string): OptionalPackage {
  const parts = specifier.split("/");
  return (specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]) as OptionalPackage;
}
