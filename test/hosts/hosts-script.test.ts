// scripts/hosts.sh: the hosts reach the servers of ptq-db at its address, a host cut off reaches nothing until it is
// restored, `up` on running hosts reuses them, and a skewed clock is what libfaketime makes of a Node process there.
// Brings the hosts up when they are not running and then takes them down again; `npm run test:hosts`.

import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cutHost, hostsDown, hostsUp, onHost, restoreHost, skewedClockEnv, type Host, type HostServers } from "../support/hosts.js";

const run = promisify(execFile);
let servers: HostServers;
let wasUp = false;

beforeAll(async () => {
  wasUp = (await run("ip", ["netns", "list"])).stdout.includes("ptq-db");
  servers = await hostsUp();
});

afterAll(async () => {
  if (!wasUp) await hostsDown();
});

/** Node on `host`: connects to each address and prints "ok" or the error's code for each, in order. */
async function reach(host: Host, targets: string[], env: Record<string, string> = {}): Promise<string[]> {
  const script = `
    const net = require("node:net");
    const one = (target) => new Promise((resolve) => {
      const [host, port] = target.split(":");
      const socket = net.connect({ host, port: Number(port), timeout: 2000 });
      socket.once("connect", () => { socket.destroy(); resolve("ok"); });
      socket.once("timeout", () => { socket.destroy(); resolve("timeout"); });
      socket.once("error", (error) => resolve(error.code));
    });
    Promise.all(process.argv.slice(1).map(one)).then((results) => console.log(results.join(" ")));`;
  const [program, ...args] = [...onHost(host), process.execPath, "-e", script, ...targets];
  const { stdout } = await run(program!, args, { env: { ...process.env, ...env } });
  return stdout.trim().split(" ");
}

const address = (url: string) => `${new URL(url).hostname}:${new URL(url).port}`;

it("lets every host reach PostgreSQL, MariaDB and RabbitMQ at ptq-db's address", async () => {
  const targets = [servers.postgresUrl, servers.mysqlUrl, servers.amqpUrl].map(address);
  expect(targets.every((target) => target.startsWith("10.77.0.2:"))).toBe(true);
  for (const host of ["ptq-w1", "ptq-w2", "ptq-app"] as const) expect(await reach(host, targets)).toEqual(["ok", "ok", "ok"]);
});

it("cuts a host off from everything until it is restored, the others untouched", async () => {
  const postgres = address(servers.postgresUrl);
  await cutHost("ptq-w1");
  try {
    expect(await reach("ptq-w1", [postgres])).not.toEqual(["ok"]);
    expect(await reach("ptq-w2", [postgres, "10.77.0.11:9"])).toEqual(["ok", expect.not.stringMatching(/^ECONNREFUSED$/)]);
  } finally {
    await restoreHost("ptq-w1");
  }
  // Restored, it answers again (a refused connection to a closed port means the host is there).
  expect(await reach("ptq-w1", [postgres])).toEqual(["ok"]);
  expect(await reach("ptq-w2", ["10.77.0.11:9"])).toEqual(["ECONNREFUSED"]);
});

it("reuses running hosts on a second up", async () => {
  const { stdout: before } = await run("ip", ["netns", "pids", "ptq-db"]);
  expect(await hostsUp()).toEqual(servers);
  const { stdout: after } = await run("ip", ["netns", "pids", "ptq-db"]);
  expect(after.split("\n").sort()).toEqual(before.split("\n").sort());
});

it("runs Node on a host with its wall clock skewed ahead", async () => {
  const skewed = async (env: Record<string, string>) => {
    const [program, ...args] = [...onHost("ptq-w2"), process.execPath, "-e", "setTimeout(() => console.log(Date.now()), 100)"];
    const { stdout } = await run(program, args, { env: { ...process.env, ...env } });
    return Number(stdout.trim()) - Date.now();
  };
  expect(await skewed(skewedClockEnv(7000))).toBeGreaterThan(5000);
  expect(await skewed({})).toBeLessThan(2000);
});
