// Where the workers of one SQLite database listen across processes: a folder of Unix sockets named after the database's
// identity (its file and table), in the system's temporary folder so the path stays short. Only this OS user may enter
// it. Sockets this process listens on are known here, so its own publishers leave them to in-process delivery.

import { createHash } from "node:crypto";
import { mkdirSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const OWN = Symbol.for("prisma-task-queue.own-wakeup-sockets");

/** True where Unix sockets in a folder can carry wake-ups (not on Windows, where they are named pipes). */
export const SOCKETS_AVAILABLE = process.platform !== "win32";

/** The folder of the database's sockets (not created). */
export function socketDirectory(identity: string): string {
  const digest = createHash("sha256").update(identity).digest("hex").slice(0, 20);
  return join(tmpdir(), `ptq-wakeups-${digest}`);
}

/** Creates the folder (owner only); false when it cannot be made or entered. */
export function ensureSocketDirectory(directory: string): boolean {
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    return true;
  } catch {
    return false;
  }
}

/** The socket paths in the folder other than this process's own; none when the folder is missing or unreadable. */
export function peerSockets(directory: string): string[] {
  try {
    return readdirSync(directory)
      .filter((name) => name.endsWith(".sock"))
      .map((name) => join(directory, name))
      .filter((path) => !ownSockets().has(path));
  } catch {
    return [];
  }
}

/** The sockets this process listens on (shared by every copy of the package in the process). */
export function ownSockets(): Set<string> {
  const scope = globalThis as { [OWN]?: Set<string> };
  return (scope[OWN] ??= new Set<string>());
}
