// Builds prisma-task-queue (the repository root, a "file:../.." dependency) and refreshes the copy installed in
// node_modules, so the example and its test always run the library as it is in this checkout, packaged as published.
import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const app = fileURLToPath(new URL("..", import.meta.url));
const installed = join(app, "node_modules", "prisma-task-queue");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const run = (args, cwd) => execFileSync(npm, args, { cwd, stdio: "inherit" });
const manifest = (dir) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));

if (!existsSync(join(root, "node_modules", "typescript"))) {
  console.error(`prisma-task-queue is not installed at the repository root (${root}). Run \`npm ci\` there first, then here.`);
  process.exit(1);
}
run(["run", "build"], root);

// npm installs the package once (.npmrc: install-links) and treats it as up to date afterwards, whatever changed.
if (existsSync(installed) && !lstatSync(installed).isSymbolicLink()) {
  const source = manifest(root);
  const copy = manifest(installed);
  const shape = (m) => JSON.stringify([m.dependencies, m.peerDependencies, m.bin, m.exports]);
  if (shape(source) !== shape(copy)) {
    console.log("prisma-task-queue: its dependencies, bin or exports changed; reinstalling it");
    rmSync(installed, { recursive: true, force: true });
    run(["install", "--no-audit", "--no-fund"], app);
  } else {
    for (const entry of [...source.files, "package.json"]) {
      rmSync(join(installed, entry), { recursive: true, force: true });
      if (existsSync(join(root, entry))) cpSync(join(root, entry), join(installed, entry), { recursive: true });
    }
    // tsc writes the bin without the execute bit; npm sets it when it installs, so do the same. npm links a bin only
    // when its file was in the packed copy, which a root without a build (nothing runs tsc at its install) lacks.
    for (const [name, bin] of Object.entries(source.bin ?? {})) {
      chmodSync(join(installed, bin), 0o755);
      const link = join(app, "node_modules", ".bin", name);
      if (!existsSync(link)) {
        mkdirSync(join(app, "node_modules", ".bin"), { recursive: true });
        rmSync(link, { force: true });
        symlinkSync(relative(join(app, "node_modules", ".bin"), join(installed, bin)), link);
      }
    }
  }
}
