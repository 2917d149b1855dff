// CPU time of a server process and its children, from /proc: what a database or broker spent, whatever else the
// machine was doing meanwhile (a rate measured on a shared machine depends on the load; CPU time per task much less).

import { readdirSync, readFileSync } from "node:fs";

/** USER_HZ: /proc counts in hundredths of a second on Linux. */
const MS_PER_TICK = 10;

/** Fields of /proc/PID/stat after the command name: [state, ppid, …]; utime is field 14 of the whole line. */
function statFields(pid: number): string[] | undefined {
  try {
    const line = readFileSync(`/proc/${pid}/stat`, "utf8");
    return line.slice(line.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** CPU time in ms: in the process's own code (user) and in the kernel on its behalf (system: fsync, sockets). */
export interface CpuMs {
  user: number;
  system: number;
}

/**
 * CPU time of process `pid`, of its children that have exited (the kernel adds theirs to the parent
 * once reaped), and of its living children, in ms. PostgreSQL's backends are children of the postmaster; MariaDB and
 * RabbitMQ are one process each.
 */
export function processTreeCpuMs(pid: number): CpuMs {
  const own = statFields(pid);
  if (!own) throw new Error(`process ${pid} is not running`);
  // After "pid (comm) ": index 0 is field 3 (state); utime, stime, cutime, cstime are fields 14–17.
  const field = (fields: string[], number: number) => Number(fields[number - 3]);
  let user = field(own, 14) + field(own, 16);
  let system = field(own, 15) + field(own, 17);
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    if (fields && Number(fields[1]) === pid) {
      user += field(fields, 14);
      system += field(fields, 15);
    }
  }
  return { user: user * MS_PER_TICK, system: system * MS_PER_TICK };
}
