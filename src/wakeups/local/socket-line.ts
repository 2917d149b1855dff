// One wake-up on a local socket: a line "<task queue>\t<id>,<id>…\n". Task queue names hold no tab or newline and ids
// are UUIDs, so the line needs no escaping; anything else read from a socket is ignored.

/** The line for `ids` of task queue `queue`. */
export function wakeupLine(queue: string, ids: readonly string[]): string {
  return `${queue}\t${ids.join(",")}\n`;
}

/** The wake-up a line holds, or undefined for a line that is not one. */
export function parseWakeupLine(line: string): { queue: string; ids: string[] } | undefined {
  const tab = line.indexOf("\t");
  if (tab <= 0) return undefined;
  const ids = line
    .slice(tab + 1)
    .split(",")
    .filter((id) => /^[0-9a-f-]{36}$/i.test(id));
  return ids.length > 0 ? { queue: line.slice(0, tab), ids } : undefined;
}
