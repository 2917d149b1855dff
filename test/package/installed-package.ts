// The package as an app installs it, for the tests that run it from node_modules: src transpiled file by file into
// <app>/node_modules/prisma-task-queue/dist/src (as the build emits it), beside a copy of package.json.

import { cpSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

export const root = fileURLToPath(new URL("../..", import.meta.url));

/** Writes the package into `app`'s node_modules; resolves the installed package's folder. */
export async function installBuiltPackage(app: string): Promise<string> {
  const installed = join(app, "node_modules", "prisma-task-queue");
  const sources = readdirSync(join(root, "src"), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
    .map((file) => join(root, "src", file));
  mkdirSync(installed, { recursive: true });
  cpSync(join(root, "package.json"), join(installed, "package.json"));
  // Transpiled file by file as tsc emits them (tsconfig.build.json: rootDir ".", outDir "dist").
  await build({
    entryPoints: sources,
    outdir: join(installed, "dist", "src"),
    outbase: join(root, "src"),
    format: "esm",
    platform: "node",
    target: "node20",
    logLevel: "silent",
  });
  return installed;
}
