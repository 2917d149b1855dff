// Writes the README's "Setup in your app" code blocks into the app at `dir`: each ```ts block whose first line is a
// `// <path>` comment goes to that path; the "// anywhere in your app" block becomes src/enqueue.ts, run once.
// Usage: node extract-blocks.mjs <README.md> <app dir>
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const [readme, dir] = process.argv.slice(2);
const text = readFileSync(readme, "utf8");
const setup = text.slice(text.indexOf("## Setup in your app"), text.indexOf("## Documentation"));
const blocks = [...setup.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]);
const written = [];
for (const block of blocks) {
  const first = block.split("\n")[0].replace(/^\/\/\s*/, "");
  if (first === "anywhere in your app") {
    const body = block.replace("// before the process exits: await prisma.$taskQueue.close();", "await prisma.$taskQueue.close();");
    writeFileSync(join(dir, "src/enqueue.ts"), `import { prisma } from "./db";\n${body}`);
    written.push("src/enqueue.ts");
  } else if (/^[\w./-]+\.ts$/.test(first)) {
    mkdirSync(dirname(join(dir, first)), { recursive: true });
    writeFileSync(join(dir, first), block);
    written.push(first);
  }
}
const expected = ["src/tasks.ts", "src/db.ts", "src/enqueue.ts", "task-runner.config.ts"];
const missing = expected.filter((file) => !written.includes(file));
if (missing.length > 0) {
  console.error(`README setup: the README has no block for ${missing.join(", ")} (found: ${written.join(", ")})`);
  process.exit(1);
}
console.log(`README setup: wrote ${written.join(", ")} from the README`);
