// Compiles task-runner configs written in TypeScript on the fly, through tsx: an optional peer dependency, loaded when
// the CLI loads a config. Without it a JavaScript config loads as it is, and a TypeScript one fails naming tsx.

import type * as TsxCjs from "tsx/cjs/api";
import type * as TsxEsm from "tsx/esm/api";
import { MissingPackageError } from "../errors.js";
import { importOptionalPackage } from "../optional-package.js";

/** .ts, .mts and .cts: the config files that need tsx. */
const TYPESCRIPT_FILE = /\.[cm]?ts$/;

let registered = false;

/**
 * Registers tsx's hooks, once for the process (ESM and CommonJS, so a config in a project without "type": "module"
 * loads too), before the config at `file` is imported; returns whether they are registered. Unlike tsImport(), which
 * loads the config's whole module graph a second time, this keeps one instance of every module in an ESM project: the
 * runner and the config share prisma-task-queue itself. Throws MissingPackageError when tsx is not installed and
 * `file` is TypeScript.
 */
export async function registerTypeScriptHooks(file: string): Promise<boolean> {
  if (registered) return true;
  try {
    const [esm, cjs] = await Promise.all([importOptionalPackage<typeof TsxEsm>("tsx/esm/api"), importOptionalPackage<typeof TsxCjs>("tsx/cjs/api")]);
    esm.register();
    cjs.register();
    registered = true;
  } catch (error) {
    if (!(error instanceof MissingPackageError) || TYPESCRIPT_FILE.test(file)) throw error;
  }
  return registered;
}
