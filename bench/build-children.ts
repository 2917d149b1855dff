// Compiles what the worker children run (src/, the child entry, the peers' worker modules) to plain JavaScript in
// bench/.build, so the children run on bare Node like a deployed worker: under tsx each would carry ~30 MB of loader.

import { readdirSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
export const BUILD_DIR = fileURLToPath(new URL("./.build", import.meta.url));

/** The TypeScript files under `dir`, recursively (declaration files left out). */
function typescriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return typescriptFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The files a worker child loads, besides packages: all of src/ and the bench's child-side modules. */
const CHILD_FILES = [
  "bench/clock.ts",
  "bench/child/worker-child.ts",
  "bench/child/messages.ts",
  "bench/peers/peer.ts",
  "bench/peers/ours-tasks.ts",
  "bench/peers/ours-worker.ts",
  "bench/postgresjs-db.ts",
  "bench/trace/recorder.ts",
  "bench/trace/timed-store.ts",
  "bench/peers/graphile-worker-settings.ts",
  "bench/peers/graphile-worker-worker.ts",
  "bench/peers/pg-boss-settings.ts",
  "bench/peers/pg-boss-worker.ts",
];

/** Compiles file by file (no bundling, so profiles name the source files), keeping the tree: bench/.build/src/…, bench/.build/bench/…. */
export async function buildChildren(): Promise<string> {
  rmSync(BUILD_DIR, { recursive: true, force: true });
  await build({
    entryPoints: [...typescriptFiles(join(root, "src")), ...CHILD_FILES.map((file) => join(root, file))],
    outdir: BUILD_DIR,
    outbase: root,
    format: "esm",
    platform: "node",
    target: "node20",
    logLevel: "error",
  });
  return join(BUILD_DIR, relative(root, join(root, "bench/child/worker-child.js")));
}
