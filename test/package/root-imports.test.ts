// What an app loads when it imports the package root: the static import graph of src/index.ts must not reach the
// config loader's TypeScript runtime (tsx, esbuild) or the dashboard's web stack (hono, uplot). Bundlers such as
// Turbopack follow exactly these static imports.

import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const src = fileURLToPath(new URL("../../src/", import.meta.url));
const STATIC_IMPORT = /^\s*(?:import|export)\s[^;]*?from\s+"([^"]+)"/gm;

/** Every bare package name statically imported from `entry` and the local modules it reaches. */
function packagesReachedFrom(entry: string): Map<string, string> {
  const seen = new Set<string>();
  const packages = new Map<string, string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const match of readFileSync(file, "utf8").matchAll(STATIC_IMPORT)) {
      if (/^\s*(import|export)\s+type\s/.test(match[0])) continue;
      const specifier = match[1]!;
      if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")));
      else if (!specifier.startsWith("node:")) packages.set(specifier, file.slice(src.length));
    }
  };
  visit(join(src, entry));
  return packages;
}

it("keeps tsx, esbuild, hono and uplot out of the package root", () => {
  const reached = packagesReachedFrom("index.ts");
  const heavy = [...reached].filter(([name]) => /^(tsx|esbuild|hono|@hono\/|uplot)/.test(name));
  expect(heavy, "heavy packages imported (package ← importing file)").toEqual([]);
  expect([...reached.keys()].sort()).toEqual(["@prisma/client/extension", "amqplib", "pg"]);
});

it("keeps the testing helpers' entry as light as the root: no tsx, esbuild, hono or uplot", () => {
  const reached = packagesReachedFrom("testing/index.ts");
  expect([...reached.keys()].sort()).toEqual(["amqplib", "pg"]);
});

it("serves the dashboard from its own entry", () => {
  const reached = packagesReachedFrom("dashboard/index.ts");
  expect([...reached.keys()].some((name) => name.startsWith("hono"))).toBe(true);
});
