// The Prisma models the package ships: each dialect's passes `prisma validate` (offline: the CLI validates with its
// bundled WebAssembly module; PRISMA_SCHEMA_ENGINE_BINARY pointing at any existing file stops it from downloading a
// schema engine it does not need), the opt-in partialIndexes variant in docs/prisma-migrate.md validates too, and the
// Next.js example's committed copy of the model is the package's, byte for byte.

import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "ptq-validate-"));
const read = (path: string) => readFileSync(join(root, path), "utf8");

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `prisma validate` on `schema` (text); resolves with its exit code and output. */
async function validate(name: string, schema: string): Promise<{ code: number; output: string }> {
  const file = join(dir, `${name}.prisma`);
  writeFileSync(file, schema);
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [join(root, "node_modules/prisma/build/index.js"), "validate", "--schema", file], {
      cwd: dir,
      env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: "1", NO_COLOR: "1" },
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, output: `${failed.stdout ?? ""}${failed.stderr ?? ""}` };
  }
}

const datasource = (provider: string) => `datasource db {\n  provider = "${provider}"\n}\n\n`;

const MODELS = [
  { provider: "postgresql", model: "prisma/task.prisma" },
  { provider: "sqlite", model: "prisma/sqlite/task.prisma" },
  { provider: "mysql", model: "prisma/mysql/task.prisma" },
];

describe("prisma validate", () => {
  for (const { provider, model } of MODELS) {
    it(`accepts the shipped ${provider} model (${model})`, { timeout: 60_000 }, async () => {
      const result = await validate(provider, datasource(provider) + read(model));
      expect(result.output).toContain("is valid");
      expect(result.code).toBe(0);
    });
  }

  it("fails on a broken model, so the checks above can fail", { timeout: 60_000 }, async () => {
    const broken = read("prisma/task.prisma").replace('@map("finished_by")', '@map("finished_by") @db.NoSuchType');
    const result = await validate("broken", datasource("postgresql") + broken);
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(/Validation Error Count: 1/);
  });

  it("accepts the opt-in partialIndexes variant that docs/prisma-migrate.md shows", { timeout: 60_000 }, async () => {
    const block = /```prisma\n([\s\S]*?)```/.exec(read("docs/prisma-migrate.md").split("<!-- partial-indexes-snippet -->")[1] ?? "")?.[1];
    expect(block, "the snippet after <!-- partial-indexes-snippet --> in docs/prisma-migrate.md").toBeDefined();
    const lines = block!.split("\n");
    const keyLine = lines.find((line) => /^\s+key\s/.test(line))!;
    const indexLines = lines.filter((line) => line.trim().startsWith("@@index("));
    expect(indexLines).toHaveLength(4);
    const model = read("prisma/task.prisma")
      .replace(/^ {2}key\s.*$/m, keyLine)
      .replace('  @@map("tasks")', `${indexLines.join("\n")}\n  @@map("tasks")`);
    const generator = `generator client {\n  provider        = "prisma-client"\n  output          = "./generated"\n  previewFeatures = ["partialIndexes"]\n}\n\n`;
    const result = await validate("partial", generator + datasource("postgresql") + model);
    expect(result.output).toContain("is valid");
    expect(result.code).toBe(0);
  });
});

it("the Next.js example's committed Task model is the package's (npm run generate -- --update-model copies it)", () => {
  expect(read("examples/nextjs-app/prisma/schema/task.prisma")).toBe(read("prisma/task.prisma"));
});
