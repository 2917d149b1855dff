// The bin as it ships: plain `node main.js`, no tsx loader on the command line. The source is transpiled file by file
// (esbuild, as tsc would emit it) and the CLI must load TypeScript configs by itself, in an ESM and a CommonJS project.

import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { fixtureDir, root } from "./cli-process.js";

// Inside the repository, so that pg, amqplib and tsx resolve from its node_modules.
const out = join(root, "node_modules", ".cache", `ptq-plain-node-${process.pid}`);
const main = join(out, "src", "cli", "main.js");
let db: TestDatabase;

beforeAll(async () => {
  const sources = readdirSync(join(root, "src"), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
    .map((file) => join(root, "src", file));
  mkdirSync(out, { recursive: true });
  await build({ entryPoints: sources, outdir: join(out, "src"), outbase: join(root, "src"), format: "esm", platform: "node", target: "node20", logLevel: "silent" });
  db = await createTestDatabase();
});

afterAll(async () => {
  rmSync(out, { recursive: true, force: true });
  await db?.drop();
});

function plainNode(args: string[], cwd: string, env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const base = { ...process.env };
  delete base.DATABASE_URL;
  delete base.NODE_OPTIONS;
  const child = spawn(process.execPath, [main, ...args], { cwd, env: { ...base, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

describe("the bin under plain node", () => {
  it("starts with a node shebang and answers --help", async () => {
    expect(readFileSync(main, "utf8").split("\n")[0]).toBe("#!/usr/bin/env node");
    const result = await plainNode(["--help"], root);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toContain("Usage: task-runner <command>");
  });

  it("loads a TypeScript config in an ESM project and queries the database", async () => {
    const result = await plainNode(["status", "--json"], fixtureDir("cli-app"), { DATABASE_URL: db.url });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ tasks: [], due: [], cleaner: { leading: false } });
  });

  it("loads a TypeScript config in a CommonJS project", async () => {
    const result = await plainNode(["status"], fixtureDir("cli-commonjs"));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("no database URL: set DATABASE_URL");
  });
});
