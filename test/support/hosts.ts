// The hosts of scripts/hosts.sh, driven from tests and the soak: bring them up (a running set is reused), read their
// servers' URLs, run a command on a host (`ip netns exec`), cut a host off and restore it, and run a program there
// under a skewed clock (libfaketime).

import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL("../../scripts/hosts.sh", import.meta.url));

export const WORKER_HOSTS = ["ptq-w1", "ptq-w2"] as const;
export const APP_HOST = "ptq-app";
export type Host = (typeof WORKER_HOSTS)[number] | typeof APP_HOST | "ptq-db";

/** The root namespace's address on the hosts' bridge: what the hosts reach the orchestrator's proxies at. */
export const BRIDGE_ADDRESS = "10.77.0.1";

export interface HostServers {
  postgresUrl: string;
  mysqlUrl: string;
  amqpUrl: string;
}

async function script(args: string[], timeoutMs: number): Promise<string> {
  const { stdout } = await run(SCRIPT, args, { timeout: timeoutMs, maxBuffer: 1 << 20 });
  return stdout.trim();
}

/** Brings the hosts and the servers of ptq-db up (reusing what runs) and returns the servers' URLs. */
export async function hostsUp(): Promise<HostServers> {
  const lines = (await script(["up"], 600_000)).split("\n");
  const value = (name: string) => {
    const line = lines.find((text) => text.startsWith(`${name}=`));
    if (!line) throw new Error(`scripts/hosts.sh up printed no ${name}: ${lines.join(" | ")}`);
    return line.slice(name.length + 1);
  };
  return { postgresUrl: value("POSTGRES_URL"), mysqlUrl: value("MYSQL_URL"), amqpUrl: value("AMQP_URL") };
}

export async function hostsDown(): Promise<void> {
  await script(["down"], 120_000);
}

/** Takes `host`'s link down: nothing reaches it or leaves it until restoreHost(). */
export async function cutHost(host: Host): Promise<void> {
  await script(["cut", host], 10_000);
}

export async function restoreHost(host: Host): Promise<void> {
  await script(["restore", host], 10_000);
}

/** The command prefix that runs a program on `host` (ip netns exec execs it: the process keeps its pid). */
export function onHost(host: Host): string[] {
  return ["ip", "netns", "exec", host];
}

const FAKETIME_LIBRARIES = [
  "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
  "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
  "/usr/lib/faketime/libfaketime.so.1",
];

/**
 * The environment that runs a program with its wall clock `skewMs` ahead (behind when negative) of the machine's,
 * through libfaketime (Debian's faketime package); monotonic clocks, which timers use, are left alone.
 */
export function skewedClockEnv(skewMs: number): Record<string, string> {
  const library = FAKETIME_LIBRARIES.find((path) => existsSync(path));
  if (!library) throw new Error(`a skewed clock needs libfaketime (looked in ${FAKETIME_LIBRARIES.join(", ")}): apt-get install faketime`);
  const seconds = skewMs / 1000;
  return { LD_PRELOAD: library, FAKETIME: `${seconds >= 0 ? "+" : ""}${seconds}s`, FAKETIME_DONT_FAKE_MONOTONIC: "1" };
}
