// Writes the README's "Quick start" code blocks into an app for one database: each ```ts block whose first line is a
// `// <path>` comment goes to that path (`// <path> (<Database>)` only for that database); the enqueue block becomes
// src/enqueue.ts (run once, beside `task-runner start`) and src/in-process.ts (the workers in the app's own process).
// Usage: node extract-blocks.mjs <README.md> <app dir> <PostgreSQL|SQLite|MySQL>
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const [readme, dir, database] = process.argv.slice(2);
const text = readFileSync(readme, "utf8");
const quickStart = text.slice(text.indexOf("## Quick start"), text.indexOf("## Documentation"));
const blocks = [...quickStart.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]);
const written = [];
const write = (path, body) => {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), body);
  written.push(path);
};
for (const block of blocks) {
  const first = block.split("\n")[0].replace(/^\/\/\s*/, "");
  const labelled = first.match(/^([\w./-]+\.ts)(?: \((\w+)\))?$/);
  if (first === "anywhere in your app") {
    const closing = "// before the process exits: ";
    const body = block.slice(0, block.indexOf(closing));
    const close = block.slice(block.indexOf(closing) + closing.length);
    if (!block.includes(closing)) throw new Error(`README setup: the enqueue block has no "${closing}…" line`);
    write("src/enqueue.ts", `import { prisma } from "./db";\n${body}${close}`);
    write(
      "src/in-process.ts",
      `import { prisma } from "./db";\nimport { startWorkers } from "./workers";\n\nconst stop = await startWorkers();\n${body}` +
        `for (let i = 0; i < 100 && (await prisma.report.count({ where: { status: "sent" } })) === 0; i++) await new Promise((r) => setTimeout(r, 100));\n` +
        `await stop();\n${close}`,
    );
  } else if (labelled && (labelled[2] === undefined || labelled[2] === database)) {
    write(labelled[1], block);
  }
}
const expected = ["src/tasks.ts", "src/db.ts", "src/enqueue.ts", "src/workers.ts", "task-runner.config.ts"];
const missing = expected.filter((file) => !written.includes(file));
if (missing.length > 0) {
  console.error(`README setup: the README has no ${database} block for ${missing.join(", ")} (found: ${written.join(", ")})`);
  process.exit(1);
}
console.log(`README setup: wrote ${written.join(", ")} from the README (${database})`);
