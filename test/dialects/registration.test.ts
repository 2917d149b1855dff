// Every dialect of the registry (src/dialects/index.ts) is complete: capabilities its store agrees with, a SQL unit per
// operation, the common file set, its model and migrations shipped, and the tests' lists and test client reaching it.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { testSchemaFolder } from "../../scripts/test-schema-folders.js";
import { DIALECTS } from "../../src/dialects/index.js";
import { openStore } from "../../src/index.js";
import { taskMigrationSources } from "../../src/package-files.js";
import { DialectStore } from "../../src/store/dialect-store.js";
import { UNIT_OPERATIONS } from "../../src/store/unit-store.js";
import { DIALECT_HARNESSES } from "../conformance/dialects.js";
import { STORE_DIALECTS } from "../conformance/store/dialects.js";
import { TESTING_DIALECTS } from "../testing/dialects.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { files: string[] };

/** The files every dialect folder holds, each in the same role. */
const FILE_SET = [
  "index.ts",
  "store.ts",
  "own-db.ts",
  "prisma-db.ts",
  "driver.ts",
  "table.ts",
  "errors.ts",
  "leader.ts",
  "insert-request.ts",
  "migration-ledger.ts",
  "sql/leader.ts",
  "sql/check-table.ts",
];

const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

describe.each(DIALECTS.map((dialect) => ({ name: dialect.name, dialect })))("the $name dialect", ({ dialect }) => {
  it("declares consistent capabilities: its wake-ups without a broker are among the ones it has", () => {
    const { notifications, inProcessWakeups, wakeupsWithoutBroker } = dialect.capabilities;
    expect(typeof notifications).toBe("boolean");
    expect(typeof inProcessWakeups).toBe("boolean");
    expect(["notify", "in-process", "polling"]).toContain(wakeupsWithoutBroker);
    if (wakeupsWithoutBroker === "notify") expect(notifications).toBe(true);
    if (wakeupsWithoutBroker === "in-process") expect(inProcessWakeups).toBe(true);
    expect(dialect.matchesUrl(dialect.urlExample)).toBe(true);
    expect(DIALECTS.filter((other) => other.matchesUrl(dialect.urlExample))).toEqual([dialect]);
  });

  it("opens the one generic store, with a SQL unit for every unit operation and the capabilities it declares", async () => {
    const support = STORE_DIALECTS.find((candidate) => candidate.name === dialect.name);
    expect(support, `test/conformance/store/dialects.ts lists ${dialect.name}`).toBeDefined();
    const database = await support!.createDatabase();
    closers.push(() => database.drop());
    const store = openStore(database.url, { max: 1 });
    closers.push(() => store.close());
    expect(store).toBeInstanceOf(DialectStore);
    const units = (store as DialectStore<never, never, never>).units as unknown as Record<string, unknown>;
    const missing = UNIT_OPERATIONS.filter((operation) => typeof units[operation] !== "function");
    expect(missing, "operations without a SQL unit").toEqual([]);
    expect(store.dialect).toBe(dialect.name);
    expect(store.displayName).toBe(dialect.displayName);
    expect(store.notifications !== undefined).toBe(dialect.capabilities.notifications);
    expect(store.wakeupIdentity !== undefined).toBe(dialect.capabilities.inProcessWakeups);
    expect(store.withAsyncCommit() !== undefined).toBe(dialect.capabilities.asyncCommit);
    expect(await store.check()).toBeUndefined();
  });

  it("ships its model and its migrations through package.json files", () => {
    expect(dialect.packageFiles.length).toBeGreaterThan(0);
    for (const entry of dialect.packageFiles) expect(manifest.files, `package.json files lists ${entry}`).toContain(entry);
    const shipped = (path: string) => dialect.packageFiles.some((entry) => path === entry || path.startsWith(`${entry}/`));
    for (const path of [dialect.schemaFiles.model, dialect.schemaFiles.migrations]) {
      expect(shipped(path), `${path} is shipped`).toBe(true);
      expect(existsSync(join(root, path)), `${path} exists`).toBe(true);
    }
    expect(taskMigrationSources(dialect.schemaFiles).length).toBeGreaterThan(0);
  });

  it("has a test client, and is in the store suite, the conformance harnesses and the testing helpers' lists", () => {
    expect(testSchemaFolder(root, dialect), `a test/prisma*/base.prisma whose provider is one of ${dialect.prismaProviders.join(", ")}`).toBeDefined();
    const support = STORE_DIALECTS.find((candidate) => candidate.name === dialect.name);
    expect(support?.notifications).toBe(dialect.capabilities.notifications);
    expect(DIALECT_HARNESSES.some((harness) => harness.store.name === dialect.name)).toBe(true);
    expect(TESTING_DIALECTS.some((harness) => harness.store.name === dialect.name)).toBe(true);
  });
});

describe("the registry", () => {
  const folders = readdirSync(join(root, "src/dialects"), { withFileTypes: true }).filter((entry) => entry.isDirectory());

  it("has one folder per dialect, each holding the common file set", () => {
    expect(folders.length).toBe(DIALECTS.length);
    for (const folder of folders) {
      const missing = FILE_SET.filter((file) => !existsSync(join(root, "src/dialects", folder.name, file)));
      expect(missing, `src/dialects/${folder.name} lacks`).toEqual([]);
    }
  });

  it("every dialect ships the same migrations, each under its own timestamp", () => {
    const steps = DIALECTS.map((dialect) => taskMigrationSources(dialect.schemaFiles).map((migration) => migration.name.replace(/^\d{14}_/, "")));
    for (const list of steps) expect(list).toEqual(steps[0]);
  });

  it("no code outside src/dialects/ tests a dialect by its name", () => {
    const offenders: string[] = [];
    const scan = (dir: string) => {
      for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
          if (path !== join("src", "dialects")) scan(path);
        } else if (path.endsWith(".ts")) {
          const text = readFileSync(join(root, path), "utf8");
          for (const dialect of DIALECTS) {
            if (new RegExp(`[!=]==\\s*"${dialect.name}"|"${dialect.name}"\\s*[!=]==`).test(text)) offenders.push(`${path} (${dialect.name})`);
          }
        }
      }
    };
    scan("src");
    expect(offenders).toEqual([]);
  });
});
