// Setup file: fails a test file that leaves sockets or timers behind (a leaked pool, connection or worker).
// Registered before the file's own hooks, so with vitest's stacked hooks it runs after them.

import { afterAll, beforeAll } from "vitest";

const WATCHED = new Set(["TCPSocketWrap", "TCPWRAP", "Timeout", "PipeWrap", "ProcessWrap"]);
let baseline = new Map<string, number>();

function activeCounts(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) {
    if (WATCHED.has(kind)) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return counts;
}

beforeAll(() => {
  baseline = activeCounts();
});

afterAll(async () => {
  const deadline = Date.now() + 2000;
  let leaked: string[];
  do {
    await new Promise((resolve) => setTimeout(resolve, 25));
    const now = activeCounts();
    leaked = [...now].filter(([kind, count]) => count > (baseline.get(kind) ?? 0)).map(([kind, count]) => `${kind} ×${count - (baseline.get(kind) ?? 0)}`);
  } while (leaked.length > 0 && Date.now() < deadline);
  if (leaked.length > 0) throw new Error(`This test file leaked resources: ${leaked.join(", ")}. Close pools, clients, workers and timers in afterAll.`);
});
