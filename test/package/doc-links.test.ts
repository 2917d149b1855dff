// The published docs (README, CHANGELOG, docs/**, as `npm pack` ships them) speak of the product alone: every relative
// link reaches a shipped file (and an anchor it has), and no line tells the project's internal history.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { anchorsOf, docProblems, linkTargets, publishedDocs, shippedFiles, slug } from "./published-docs.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const shipped = shippedFiles(root);
const docs = publishedDocs(shipped);

describe("the published docs", () => {
  it("are README.md, CHANGELOG.md and the markdown files under docs/", () => {
    expect(docs).toContain("README.md");
    expect(docs).toContain("CHANGELOG.md");
    expect(docs).toContain("docs/guarantees.md");
  });

  for (const doc of docs) {
    it(`${doc}: links only to shipped files and their anchors, and tells no internal history`, () => {
      expect(docProblems(root, doc, new Set(shipped))).toEqual([]);
    });
  }
});

describe("the checker", () => {
  const shippedSet = new Set(["README.md", "docs/a.md", "docs/images/x.png", "dist/src/index.js"]);

  it("reads inline, reference and HTML links, and skips code", () => {
    const text =
      'See [a](docs/a.md#top) and ![x](docs/images/x.png).\n\n[ref]: ../shared/notes/x.md\n<a href="b.md">b</a>\n`[c](not-a-link.md)`\n```\n[d](nor-this.md)\n```\n';
    expect(linkTargets(text)).toEqual(["docs/a.md#top", "docs/images/x.png", "../shared/notes/x.md", "b.md"]);
  });

  it("slugs headings as GitHub does", () => {
    expect(slug("`createWorker(options)` — the worker")).toBe("createworkeroptions--the-worker");
    expect(slug("Under faults: the chaos soak")).toBe("under-faults-the-chaos-soak");
    expect([...anchorsOf('# A\n## A\n<a id="wake-ups"></a>\n```\n# not a heading\n```\n')]).toEqual(["a", "a-1", "wake-ups"]);
  });

  it("refuses links to unshipped paths and missing anchors, and history text", () => {
    const dir = mkdtempSync(join(tmpdir(), "ptq-docs-"));
    try {
      mkdirSync(join(dir, "docs"));
      writeFileSync(join(dir, "docs/a.md"), "# Top\n");
      writeFileSync(
        join(dir, "README.md"),
        [
          "[ok](docs/a.md#top) [ok](docs/images/x.png) [ok](https://github.com/prisma/prisma/issues/123) [ok](#readme)",
          "[example](examples/nextjs-app) [compat](compat/prisma6/run.sh) [anchor](docs/a.md#nowhere) [up](../shared/notes/sqlite-lab.md)",
          "Seed 003's alternative, after issue 15, at commit `6bf83f2`†, as issue",
          "14 said.",
          "# Readme",
        ].join("\n"),
      );
      expect(docProblems(dir, "README.md", shippedSet)).toEqual([
        "README.md: links to examples/nextjs-app, which the package does not ship",
        "README.md: links to compat/prisma6/run.sh, which the package does not ship",
        'README.md: links to docs/a.md#nowhere, but docs/a.md has no heading or anchor "nowhere"',
        "README.md: links to ../shared/notes/sqlite-lab.md, which the package does not ship",
        'README.md:2: "../shared" is a path outside the package (../shared)',
        'README.md:3: "Seed 003" is a design "seed" of the project\'s own work',
        'README.md:3: "issue 15" is an issue number of the project\'s own tracker',
        'README.md:3: "†" is a † footnote about how commits landed',
        'README.md:3: "issue 14" is an issue number of the project\'s own tracker',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
