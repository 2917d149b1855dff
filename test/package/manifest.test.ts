// The published package: npm runs none of its scripts when an app installs it (the build runs before packing), its
// description tells what the product is, its peer range admits no driver that breaks on the Node it supports, and its
// build ships no source maps (they would point stack traces at src/*.ts files the package does not ship).

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const read = (path: string): unknown => JSON.parse(readFileSync(fileURLToPath(new URL(`../../${path}`, import.meta.url)), "utf8"));
const manifest = read("package.json") as {
  description: string;
  engines: { node: string };
  scripts: Record<string, string>;
  peerDependencies: Record<string, string>;
};
type CompilerOptions = Record<string, unknown>;

/** The scripts npm runs in an installed package, or in a directory or git dependency it packs for the install. */
const INSTALL_SCRIPTS = ["preinstall", "install", "postinstall", "preprepare", "prepare", "postprepare"];

describe("package.json", () => {
  it("has no script that npm runs when the package is installed, and builds before it is packed", () => {
    expect(Object.keys(manifest.scripts).filter((name) => INSTALL_SCRIPTS.includes(name))).toEqual([]);
    expect(manifest.scripts.prepack).toBe("npm run build");
    expect(manifest.scripts.build).toContain("tsc -p tsconfig.build.json");
  });

  it("describes the product: the transactional enqueue, every wake-up transport and every database", () => {
    for (const words of ["transaction", "Prisma", "NOTIFY", "RabbitMQ", "in-process", "PostgreSQL", "SQLite", "MySQL/MariaDB"]) {
      expect(manifest.description).toContain(words);
    }
  });

  it("admits better-sqlite3 12 only: 13 needs Node 22, and the package supports Node 20.19", () => {
    expect(manifest.engines.node).toBe(">=20.19");
    expect(manifest.peerDependencies["better-sqlite3"]).toBe(">=12.6 <13");
  });

  it("builds dist from scratch without source maps", () => {
    const build = read("tsconfig.build.json") as { extends: string; compilerOptions: CompilerOptions };
    const base = read(build.extends.replace(/^\.\//, "")) as { compilerOptions: CompilerOptions };
    const options = { ...base.compilerOptions, ...build.compilerOptions };
    expect([options.sourceMap, options.inlineSourceMap ?? false, options.declarationMap ?? false]).toEqual([false, false, false]);
    expect(manifest.scripts.build).toMatch(/rmSync\('dist'.*&& tsc -p tsconfig\.build\.json$/);
  });
});
