// What an app loads when it imports the package root: the static import graph of src/index.ts must not reach the
// config loader's TypeScript runtime (tsx, esbuild), the dashboard's web stack (hono, uplot) or any optional peer
// dependency (pg, amqplib, the drivers): those load through src/optional-package.ts where they are used. Bundlers such
// as Turbopack follow exactly these static imports.

import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { OPTIONAL_PACKAGE_NAMES } from "../../src/optional-package.js";

const src = fileURLToPath(new URL("../../src/", import.meta.url));
const STATIC_IMPORT = /^\s*(?:import|export)\s[^;]*?from\s+"([^"]+)"/gm;
const manifest = JSON.parse(readFileSync(join(src, "..", "package.json"), "utf8")) as {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};

/** The bare package of a specifier: "hono/cookie" → "hono", "@hono/node-server" → itself. */
function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

/** Every bare package name statically imported (types aside) by `file`. */
function importsOf(file: string): Array<{ specifier: string; local: boolean }> {
  return [...readFileSync(file, "utf8").matchAll(STATIC_IMPORT)]
    .filter((match) => !/^\s*(import|export)\s+type\s/.test(match[0]))
    .map((match) => ({ specifier: match[1]!, local: match[1]!.startsWith(".") }));
}

/** Every bare package name statically imported from `entry` and the local modules it reaches. */
function packagesReachedFrom(entry: string): Map<string, string> {
  const seen = new Set<string>();
  const packages = new Map<string, string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const { specifier, local } of importsOf(file)) {
      if (local) visit(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")));
      else if (!specifier.startsWith("node:")) packages.set(specifier, file.slice(src.length));
    }
  };
  visit(join(src, entry));
  return packages;
}

it("keeps the package root to @prisma/client and croner (its one dependency, which reads schedules): no optional peer, no tsx, esbuild, hono or uplot", () => {
  expect([...packagesReachedFrom("index.ts").keys()].sort()).toEqual(["@prisma/client/extension", "croner"]);
});

it("keeps the testing helpers' entry as light as the root", () => {
  expect([...packagesReachedFrom("testing/index.ts").keys()].sort()).toEqual([]);
});

it("keeps the CLI's own graph free of optional peers: the dashboard command is imported when it runs", () => {
  const reached = [...packagesReachedFrom("cli/main.ts").keys()].map(packageOf);
  expect(reached.filter((name) => (OPTIONAL_PACKAGE_NAMES as string[]).includes(name) || name === "uplot")).toEqual([]);
});

it("imports no optional peer statically anywhere: each loads through the loader, and the manifest declares it optional", () => {
  const files = readdirSync(src, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".ts"));
  const direct = files.flatMap((file) =>
    importsOf(join(src, file))
      .filter(({ specifier, local }) => !local && (OPTIONAL_PACKAGE_NAMES as string[]).includes(packageOf(specifier)))
      .map(({ specifier }) => `${file} imports ${specifier}`),
  );
  expect(direct).toEqual([]);
  for (const name of OPTIONAL_PACKAGE_NAMES) {
    expect(manifest.peerDependencies?.[name], `${name} in peerDependencies`).toBeDefined();
    expect(manifest.peerDependenciesMeta?.[name]?.optional, `${name} optional`).toBe(true);
    expect(manifest.dependencies?.[name], `${name} not in dependencies`).toBeUndefined();
    expect(manifest.devDependencies?.[name], `${name} in devDependencies, for the tests`).toBeDefined();
  }
});
