// One wake-up on a local socket, a line: "<task queue>\t<id>,<id>…\n" for tasks due now, and
// "@<task queue>\t<id>/<due at>,…\n" for tasks due later (<due at>: Unix ms on the machine's clock, which every process
// on it shares). Task queue names hold no tab, newline or "@" and ids are UUIDs, so the line needs no escaping;
// anything else read from a socket is ignored.

/** A wake-up of a task due later: its id and when it is due, in Unix ms. */
export interface LaterOnSocket {
  id: string;
  dueAtUnixMs: number;
}

export type SocketWakeup = { queue: string; ids: string[]; later?: undefined } | { queue: string; later: LaterOnSocket[] };

/** `wakeups` (due on this process's monotonic clock) with their due times on the machine's clock, for other processes. */
export function onMachineClock(wakeups: ReadonlyArray<{ id: string; dueAt: number }>): LaterOnSocket[] {
  const offset = Date.now() - performance.now();
  return wakeups.map(({ id, dueAt }) => ({ id, dueAtUnixMs: dueAt + offset }));
}

/** Wake-ups read from a socket, due on this process's monotonic clock. */
export function onProcessClock(later: readonly LaterOnSocket[]): Array<{ id: string; dueAt: number }> {
  const offset = performance.now() - Date.now();
  return later.map(({ id, dueAtUnixMs }) => ({ id, dueAt: dueAtUnixMs + offset }));
}

/** The line for `ids` of task queue `queue`. */
export function wakeupLine(queue: string, ids: readonly string[]): string {
  return `${queue}\t${ids.join(",")}\n`;
}

/** The line for tasks of task queue `queue` due later. */
export function laterLine(queue: string, wakeups: readonly LaterOnSocket[]): string {
  return `@${queue}\t${wakeups.map((wakeup) => `${wakeup.id}/${Math.round(wakeup.dueAtUnixMs)}`).join(",")}\n`;
}

const UUID = /^[0-9a-f-]{36}$/i;

/** The wake-up a line holds, or undefined for a line that is not one. */
export function parseWakeupLine(line: string): SocketWakeup | undefined {
  const tab = line.indexOf("\t");
  if (tab <= 0) return undefined;
  const fields = line.slice(tab + 1).split(",");
  if (line.startsWith("@")) {
    if (tab === 1) return undefined;
    const later = fields.flatMap((field) => {
      const [id, at] = field.split("/");
      const dueAtUnixMs = Number(at);
      return id && UUID.test(id) && Number.isFinite(dueAtUnixMs) ? [{ id, dueAtUnixMs }] : [];
    });
    return later.length > 0 ? { queue: line.slice(1, tab), later } : undefined;
  }
  const ids = fields.filter((id) => UUID.test(id));
  return ids.length > 0 ? { queue: line.slice(0, tab), ids } : undefined;
}
