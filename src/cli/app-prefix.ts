// The broker prefix `task-runner init` proposes for an app: from its package.json name ("@acme/shop" → "acme.shop"),
// so two apps on one RabbitMQ never share exchanges and queues. The library's own default stays "task_queue".

import { existsSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { isUsablePrefix } from "../wakeups/rabbitmq/topology.js";

/** The prefix and where it came from, for init's output. */
export interface AppPrefix {
  prefix: string;
  source: string;
}

/** `given` when usable (else undefined: the caller reports it), or one derived from cwd's package.json name or folder. */
export function appPrefix(cwd: string, given: string | undefined): AppPrefix | undefined {
  if (given !== undefined) return isUsablePrefix(given) ? { prefix: given, source: "--prefix" } : undefined;
  const manifest = join(cwd, "package.json");
  if (existsSync(manifest)) {
    let name: unknown;
    try {
      name = (JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name;
    } catch {
      name = undefined;
    }
    const fromName = typeof name === "string" ? prefixFrom(name) : undefined;
    if (fromName) return { prefix: fromName, source: `the name in package.json (${JSON.stringify(name)})` };
  }
  return { prefix: prefixFrom(basename(cwd)) ?? "app_tasks", source: `the folder name (${JSON.stringify(basename(cwd))})` };
}

/** A name made usable as a prefix: scope separators become ".", other characters "_"; undefined when nothing is left. */
function prefixFrom(name: string): string | undefined {
  const cleaned = name
    .replace(/^@/, "")
    .replace(/\//g, ".")
    .replace(/[^A-Za-z0-9_.-]/g, "_")
    .replace(/^[^A-Za-z0-9]+/, "")
    .slice(0, 100);
  return cleaned && isUsablePrefix(cleaned) ? cleaned : undefined;
}
