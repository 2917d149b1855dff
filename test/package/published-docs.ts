// What the published docs may contain: the files the package ships (from `npm pack --dry-run`), the docs among them
// (README, CHANGELOG, docs/**), their links, and the problems of one doc (links to unshipped paths or missing anchors,
// text about how the project's work went).

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { posix } from "node:path";

/** Every path the package ships, relative to its root, as `npm pack --dry-run` lists them (no build is run). */
export function shippedFiles(root: string): string[] {
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const output = execFileSync(npm, ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  const [report] = JSON.parse(output) as Array<{ files: Array<{ path: string }> }>;
  return report!.files.map((file) => file.path);
}

/** The shipped docs a reader of the registry page meets: README.md, CHANGELOG.md and every markdown file under docs/. */
export function publishedDocs(shipped: readonly string[]): string[] {
  return shipped.filter((path) => path === "README.md" || path === "CHANGELOG.md" || (path.startsWith("docs/") && path.endsWith(".md"))).sort();
}

/** Text that tells the project's internal history instead of the product: each with the reason it is refused. */
const HISTORY: Array<{ pattern: RegExp; why: string }> = [
  { pattern: /\.\.\/shared\b|shared\/notes/g, why: "a path outside the package (../shared)" },
  { pattern: /\bseed\s+00\d\b/gi, why: 'a design "seed" of the project\'s own work' },
  { pattern: /\bissues?\s+#?\d+\b/gi, why: "an issue number of the project's own tracker" },
  { pattern: /†/g, why: "a † footnote about how commits landed" },
];

const LINK = /!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const REFERENCE = /^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm;
const HREF = /<a\s[^>]*href="([^"]+)"/g;

/** The link targets of a markdown text, outside code blocks. */
export function linkTargets(markdown: string): string[] {
  const text = withoutCode(markdown);
  return [...text.matchAll(LINK), ...text.matchAll(REFERENCE), ...text.matchAll(HREF)].map((match) => match[1]!);
}

/** The anchors a markdown file offers: its headings' GitHub slugs and explicit `<a id="…">` / `<a name="…">`. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of withoutFences(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(match[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const match of markdown.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) anchors.add(match[1]!);
  return anchors;
}

/** GitHub's heading slug: lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading: string): string {
  const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/<[^>]+>/g, "");
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/**
 * The problems of the published doc `path` (relative to the package root): relative links to a path the package does
 * not ship or to an anchor the target does not have, and history text. Public http(s) URLs and mailto: are not checked.
 */
export function docProblems(root: string, path: string, shipped: ReadonlySet<string>): string[] {
  const markdown = readFileSync(posix.join(root, path), "utf8");
  const problems: string[] = [];
  for (const target of linkTargets(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, http:, mailto:
    const [file = "", anchor] = target.split("#", 2) as [string, string | undefined];
    const resolved = file === "" ? path : posix.normalize(posix.join(posix.dirname(path), decodeURIComponent(file))).replace(/\/$/, "");
    if (resolved.startsWith("../") || !(shipped.has(resolved) || [...shipped].some((entry) => entry.startsWith(`${resolved}/`)))) {
      problems.push(`${path}: links to ${target}, which the package does not ship`);
      continue;
    }
    if (anchor !== undefined && resolved.endsWith(".md") && !anchorsOf(readFileSync(posix.join(root, resolved), "utf8")).has(anchor)) {
      problems.push(`${path}: links to ${target}, but ${resolved} has no heading or anchor "${anchor}"`);
    }
  }
  const history = HISTORY.flatMap(({ pattern, why }) => [...markdown.matchAll(pattern)].map((found) => ({ found, why })));
  for (const { found, why } of history.sort((a, b) => a.found.index - b.found.index)) {
    const line = markdown.slice(0, found.index).split("\n").length;
    problems.push(`${path}:${line}: "${found[0].replace(/\s+/g, " ")}" is ${why}`);
  }
  return problems;
}

/** The text with fenced code blocks blanked, so that code is never read as a heading. */
function withoutFences(markdown: string): string {
  return markdown.replace(/^ *```[\s\S]*?^ *```/gm, (block) => block.replace(/[^\n]/g, " "));
}

/** The text with fenced code blocks and inline code spans blanked, so that code is never read as a link. */
function withoutCode(markdown: string): string {
  return withoutFences(markdown).replace(/`[^`\n]*`/g, (span) => " ".repeat(span.length));
}
