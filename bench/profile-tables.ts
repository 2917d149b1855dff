// The drain's profile tables of a `--profile` run: one per drain layout, a column per peer (every repeat and process
// of that peer and layout summed), from the directories the worker children wrote under bench/results/profiles/.

import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { PROFILE_DIR } from "./child/worker-processes.js";
import { categoryTable, readSetup } from "./profile-categories.js";

/** Empties the profile directory, so the tables count this run's profiles only. */
export function clearProfiles(): void {
  rmSync(PROFILE_DIR, { recursive: true, force: true });
}

/** The tables, in markdown, each under a heading naming its layout; empty when no drain was profiled. */
export function drainProfileTables(peerOrder: readonly string[]): string {
  if (!existsSync(PROFILE_DIR)) return "";
  const groups = new Map<string, Map<string, string[]>>();
  for (const dir of readdirSync(PROFILE_DIR)) {
    const match = /^(.+)-drain-(\d+x\d+)-\d+-\d+$/.exec(dir);
    if (!match) continue;
    const [, peer, layout] = match as unknown as [string, string, string];
    const byPeer = groups.get(layout) ?? new Map<string, string[]>();
    groups.set(layout, byPeer);
    byPeer.set(peer, [...(byPeer.get(peer) ?? []), join(PROFILE_DIR, dir)]);
  }
  return [...groups]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([layout, byPeer]) => {
      const peers = [...byPeer.keys()].sort((a, b) => peerOrder.indexOf(a) - peerOrder.indexOf(b));
      return `#### Drain ${layout.replace("x", " × ")}: where the workers' CPU goes\n\n${categoryTable(peers.map((peer) => readSetup(peer, byPeer.get(peer)!)))}`;
    })
    .join("\n\n");
}
